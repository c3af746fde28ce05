package io.delayq.core;

import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.BulkOperation.Kind;
import io.delayq.core.archive.BulkOperation.State;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.OperatorLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every {@link OperatorLog} promises, run against a real backend by each archive module
 * ({@code class MongoOperatorLogContractTest extends OperatorLogContract}).
 *
 * <p>Operations and the audit log are listed across the whole backend, newest first, and test classes may share one
 * backend. So every test dates its records a century ahead of now ({@link #base}, later for each test): they are the
 * newest there are, and the listings' first items are this test's. Retention is checked on records dated just inside
 * the 30 days, by moving the archive's retention ahead with {@link #expire}; records a century ahead never reach it.
 */
public abstract class OperatorLogContract {
    /** How long operations (after their last report) and audit entries are kept, at least. */
    protected static final Duration RETENTION = Duration.ofDays(30);
    private static final long CENTURY_MS = Duration.ofDays(36_525).toMillis();

    /**
     * A new archive on the shared test backend whose operator log keeps records {@link #RETENTION} (its tombstone
     * retention is no longer); closed after each test. Each call gives another instance on the same data, as another
     * service instance would have.
     */
    protected abstract JobArchive newArchive();

    /**
     * Applies the retention of {@code archive}'s operator log once, to the end, as if the time were {@code nowMs}, as
     * its background reaper (or its backend's own expiry) does by itself.
     */
    protected abstract void expire(JobArchive archive, long nowMs);

    /**
     * An archive pointed at a backend that cannot be reached, failing fast (as in {@link JobArchiveContract}). Building
     * it may fail; either way the failure is a {@link StoreException} with {@link StoreStatus#UNAVAILABLE}.
     */
    protected abstract JobArchive newUnreachableArchive();

    protected JobArchive archive;
    protected OperatorLog log;
    /** This test's "now": a century ahead, so that its records are the newest on the backend (see the class comment). */
    protected long base;
    private final List<JobArchive> others = new ArrayList<>();

    @BeforeEach
    void openArchive() {
        archive = newArchive();
        log = archive.operatorLog();
        base = System.currentTimeMillis() + CENTURY_MS;
    }

    @AfterEach
    void closeArchives() {
        others.forEach(JobArchive::close);
        others.clear();
        archive.close();
    }

    /** The operator log of another instance on the same backend (another service instance), closed after the test. */
    private OperatorLog secondInstance() {
        JobArchive second = newArchive();
        others.add(second);
        return second.operatorLog();
    }

    // ------------------------------------------------------------------ operations

    @Test
    void anOperationKeepsEveryField() {
        BulkOperation purge = new BulkOperation(newId(), Kind.PURGE, "topic=orders&group=3fa2&status=503",
                State.FAILED, 1_234_567_890_123L, 1_000_000_007L, 42, "alice@ops", base - 5_000, base, true,
                "store unavailable: \"connection refused\" — ünïcödé");
        BulkOperation replay = new BulkOperation(newId(), Kind.REPLAY, "", State.RUNNING, 0, 0, 0, "bob", base,
                base, false, null, "acme-" + newId());

        log.save(purge);
        log.save(replay);

        assertThat(log.operation(purge.id())).contains(purge);
        assertThat(log.operation(replay.id())).contains(replay);
        assertThat(secondInstance().operation(purge.id())).as("seen by every instance").contains(purge);
        assertThat(log.operation(newId())).isEmpty();
    }

    @Test
    void savingAgainReplacesTheWholeOperation() {
        BulkOperation first = running(base);
        log.save(first);
        BulkOperation replaced = new BulkOperation(first.id(), Kind.PURGE, "topic=other", State.CANCELLED, 9, 8, 1,
                "carol", base + 1, base + 2, true, "stopped");

        log.save(replaced);

        assertThat(log.operation(first.id())).contains(replaced);
        assertThat(log.operations(DeadLetterQuery.MAX_LIMIT)).filteredOn(o -> o.id().equals(first.id()))
                .containsExactly(replaced);
    }

    @Test
    void operationsAreListedNewestFirstUpToTheLimit() {
        BulkOperation oldest = running(base + 1);
        BulkOperation newest = running(base + 3);
        BulkOperation middle = running(base + 2);
        // the same createdAt: the larger id first
        BulkOperation tieLow = withId(running(base + 2), "0000-" + middle.id());
        for (BulkOperation op : List.of(middle, oldest, tieLow, newest)) {
            log.save(op);
        }

        assertThat(log.operations(4)).containsExactly(newest, middle, tieLow, oldest);
        assertThat(log.operations(2)).containsExactly(newest, middle);
        assertThat(log.operations(1)).containsExactly(newest);
    }

    @Test
    void aLimitOutsideOneToTheMaximumIsRefused() {
        for (int limit : new int[] {0, -1, DeadLetterQuery.MAX_LIMIT + 1}) {
            assertThatThrownBy(() -> log.operations(limit)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("limit");
            assertThatThrownBy(() -> log.auditLog(limit, null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("limit");
        }
    }

    // ------------------------------------------------------------------ progress and cancel

    @Test
    void aReportKeepsACancelRequestedMeanwhileByAnotherInstance() {
        BulkOperation runner = running(base);
        log.save(runner);

        BulkOperation cancelled = secondInstance().requestCancel(runner.id()).orElseThrow();
        assertThat(cancelled.cancelRequested()).isTrue();
        assertThat(cancelled.state()).isEqualTo(State.RUNNING);

        // the runner's copy still says cancelRequested = false
        BulkOperation stored = log.report(runner.progressed(50, 1, "HTTP 409", base + 10)).orElseThrow();

        assertThat(stored.cancelRequested()).as("the cancel survives the report").isTrue();
        assertThat(stored.done()).isEqualTo(50);
        assertThat(stored.failed()).isEqualTo(1);
        assertThat(stored.lastError()).isEqualTo("HTTP 409");
        assertThat(stored.updatedAt()).isEqualTo(base + 10);
        assertThat(stored.state()).isEqualTo(State.RUNNING);
        assertThat(stored).isEqualTo(new BulkOperation(runner.id(), runner.kind(), runner.filter(), State.RUNNING,
                runner.total(), 50, 1, runner.startedBy(), runner.createdAt(), base + 10, true, "HTTP 409"));
        assertThat(log.operation(runner.id())).contains(stored);
    }

    @Test
    void aReportChangesOnlyTheProgressOfARunningOperation() {
        BulkOperation runner = running(base);
        log.save(runner);

        BulkOperation stored = log.report(new BulkOperation(runner.id(), Kind.PURGE, "topic=changed", State.RUNNING,
                999, 10, 2, "mallory", base - 1, base + 5, true, null)).orElseThrow();

        assertThat(stored).as("kind, filter, total, startedBy, createdAt and cancelRequested are not a report's")
                .isEqualTo(new BulkOperation(runner.id(), runner.kind(), runner.filter(), State.RUNNING,
                        runner.total(), 10, 2, runner.startedBy(), runner.createdAt(), base + 5, false, null));
    }

    @Test
    void aReportWithAFinishedStateStoresIt() {
        BulkOperation done = running(base);
        log.save(done);
        BulkOperation stopped = running(base);
        log.save(stopped);

        BulkOperation finished = log.report(done.progressed(100, 0, null, base + 1).finished(State.DONE, base + 2))
                .orElseThrow();
        assertThat(finished.state()).isEqualTo(State.DONE);
        assertThat(finished.done()).isEqualTo(100);
        assertThat(finished.updatedAt()).isEqualTo(base + 2);
        assertThat(log.operation(done.id())).contains(finished);

        log.requestCancel(stopped.id());
        BulkOperation cancelled = log.report(stopped.progressed(3, 1, "gone", base + 3)
                .finished(State.CANCELLED, base + 3)).orElseThrow();
        assertThat(cancelled.state()).isEqualTo(State.CANCELLED);
        assertThat(cancelled.cancelRequested()).isTrue();
        assertThat(cancelled.lastError()).isEqualTo("gone");
        assertThat(log.operation(stopped.id())).contains(cancelled);
    }

    @Test
    void aReportOfAnUnknownOperationIsEmptyAndCreatesNothing() {
        BulkOperation ghost = running(base);

        assertThat(log.report(ghost.progressed(1, 0, null, base + 1))).isEmpty();
        assertThat(log.operation(ghost.id())).isEmpty();
    }

    @Test
    void aCancelIsRequestedOnlyOfARunningOperation() {
        BulkOperation running = running(base);
        BulkOperation finished = running(base).finished(State.DONE, base + 1);
        log.save(running);
        log.save(finished);

        assertThat(log.requestCancel(newId())).as("unknown").isEmpty();
        assertThat(log.operation(running.id())).contains(running);

        assertThat(log.requestCancel(finished.id())).as("finished: unchanged").contains(finished);
        assertThat(log.operation(finished.id())).hasValueSatisfying(o -> assertThat(o.cancelRequested()).isFalse());

        BulkOperation cancelled = log.requestCancel(running.id()).orElseThrow();
        assertThat(cancelled).isEqualTo(new BulkOperation(running.id(), running.kind(), running.filter(),
                State.RUNNING, running.total(), running.done(), running.failed(), running.startedBy(),
                running.createdAt(), running.updatedAt(), true, running.lastError()));
        assertThat(log.requestCancel(running.id())).as("again: the same").contains(cancelled);
        assertThat(log.operation(running.id())).contains(cancelled);
    }

    // ------------------------------------------------------------------ audit

    @Test
    void auditEntriesKeepEveryFieldAndAreListedNewestFirst() {
        AuditEntry settings = new AuditEntry(newId(), base + 1, "alice", "topic.settings", "orders", 0,
                "maxAttempts 5 → 8, \"quoted\"");
        AuditEntry purge = new AuditEntry(newId(), base + 2, "bob@ops", "dead-letters.purge",
                "topic=orders&status=503", 1_234_567_890_123L, null, "acme-" + newId());
        log.audit(settings);
        log.audit(purge);

        assertThat(log.auditLog(2, null)).containsExactly(purge, settings);
        assertThat(log.auditLog(1, null)).containsExactly(purge);
        assertThat(secondInstance().auditLog(2, null)).as("seen by every instance").containsExactly(purge, settings);
    }

    @Test
    void theAuditLogIsPagedByTheLastEntrySeenWithTiesBrokenById() {
        List<AuditEntry> newestFirst = new ArrayList<>();
        for (int i = 9; i >= 0; i--) {
            // pairs of entries share an `at`: within a pair the larger id comes first
            long at = base + i / 2;
            newestFirst.add(new AuditEntry(at + "-" + (i % 2) + "-" + UUID.randomUUID(), at, "alice", "job.cancel",
                    "orders/" + i, 1, null));
        }
        List<AuditEntry> oldestFirst = new ArrayList<>(newestFirst);
        Collections.reverse(oldestFirst);
        oldestFirst.forEach(log::audit);

        assertThat(log.auditLog(10, null)).containsExactlyElementsOf(newestFirst);
        List<AuditEntry> walked = new ArrayList<>();
        String before = null;
        for (int page = 0; page < 4; page++) {
            List<AuditEntry> items = log.auditLog(3, before);
            assertThat(items).hasSizeLessThanOrEqualTo(3);
            walked.addAll(items);
            before = items.get(items.size() - 1).id();
        }
        assertThat(walked.subList(0, 10)).containsExactlyElementsOf(newestFirst);
        assertThat(log.auditLog(2, newestFirst.get(4).id())).containsExactly(newestFirst.get(5), newestFirst.get(6));
    }

    @Test
    void aPageBeforeAnUnknownEntryIsRefused() {
        assertThatThrownBy(() -> log.auditLog(10, "no-such-entry-" + newId()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-entry-");
    }

    // ------------------------------------------------------------------ tenants

    /**
     * Operations of two tenants and of operators: each tenant lists, reads and cancels its own only; operators all of
     * them. Tenants are named for the test, so that no other test's records are theirs.
     */
    @Test
    void aTenantListsReadsAndCancelsOnlyItsOwnOperations() {
        String acme = "acme-" + newId();
        String shop = "shop-" + newId();
        BulkOperation acme1 = ofTenant(running(base + 1), acme);
        BulkOperation shop1 = ofTenant(running(base + 2), shop);
        BulkOperation operators = running(base + 3);
        BulkOperation acme2 = ofTenant(running(base + 4), acme);
        for (BulkOperation op : List.of(acme1, shop1, operators, acme2)) {
            log.save(op);
        }

        assertThat(log.operations(10, acme)).containsExactly(acme2, acme1);
        assertThat(log.operations(1, acme)).containsExactly(acme2);
        assertThat(log.operations(10, shop)).containsExactly(shop1);
        assertThat(log.operations(10, "nobody-" + newId())).isEmpty();
        assertThat(log.operations(4, null)).containsExactly(acme2, operators, shop1, acme1);
        assertThat(log.operations(4)).as("an operator's list").containsExactly(acme2, operators, shop1, acme1);

        assertThat(log.operation(acme1.id(), acme)).contains(acme1);
        assertThat(log.operation(acme1.id(), shop)).as("another tenant's is unknown").isEmpty();
        assertThat(log.operation(operators.id(), acme)).as("operators' is unknown to a tenant").isEmpty();
        assertThat(log.operation(shop1.id(), null)).contains(shop1);
        assertThat(secondInstance().operation(acme2.id())).as("every field, the tenant too").contains(acme2);

        assertThat(log.requestCancel(shop1.id(), acme)).as("another tenant's").isEmpty();
        assertThat(log.operation(shop1.id()).orElseThrow().cancelRequested()).as("left alone").isFalse();
        assertThat(log.requestCancel(operators.id(), acme)).isEmpty();
        assertThat(log.requestCancel(shop1.id(), shop)).hasValueSatisfying(op -> {
            assertThat(op.cancelRequested()).isTrue();
            assertThat(op.tenant()).isEqualTo(shop);
        });
        assertThat(log.requestCancel(acme1.id(), null)).as("an operator cancels anyone's")
                .hasValueSatisfying(op -> assertThat(op.cancelRequested()).isTrue());
        assertThat(log.report(acme2.progressed(3, 1, "x", base + 5))).as("a report keeps the tenant")
                .hasValueSatisfying(op -> assertThat(op.tenant()).isEqualTo(acme));
    }

    /**
     * Audit entries of two tenants and of operators, sharing times: a tenant's log holds its own entries only, and
     * walking it by pages neither repeats nor skips one; a page cannot start from another tenant's entry.
     */
    @Test
    void aTenantsAuditLogHoldsOnlyItsOwnEntriesPageAfterPage() {
        String acme = "acme-" + newId();
        String shop = "shop-" + newId();
        List<AuditEntry> all = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            String tenant = i % 3 == 0 ? acme : i % 3 == 1 ? shop : null;
            all.add(new AuditEntry(newId(), base + i / 4, "alice", "dead-letters.purge", "topic=t" + i, i, null,
                    tenant));
        }
        all.forEach(log::audit);
        List<AuditEntry> newestFirst = all.stream()
                .sorted(java.util.Comparator.comparingLong(AuditEntry::at).thenComparing(AuditEntry::id).reversed())
                .toList();
        List<AuditEntry> acmes = newestFirst.stream().filter(e -> acme.equals(e.tenant())).toList();

        assertThat(acmes).hasSize(5);
        assertThat(log.auditLog(100, null, acme)).containsExactlyElementsOf(acmes);
        assertThat(log.auditLog(100, null, shop)).containsExactlyElementsOf(
                newestFirst.stream().filter(e -> shop.equals(e.tenant())).toList());
        assertThat(log.auditLog(15, null, null)).as("an operator's log").containsExactlyElementsOf(newestFirst);
        assertThat(log.auditLog(15, null)).containsExactlyElementsOf(newestFirst);
        for (int limit = 1; limit <= 3; limit++) {
            List<AuditEntry> walked = new ArrayList<>();
            String before = null;
            for (int page = 0; page < 10; page++) {
                List<AuditEntry> items = log.auditLog(limit, before, acme);
                if (items.isEmpty()) {
                    break;
                }
                assertThat(items).hasSizeLessThanOrEqualTo(limit);
                walked.addAll(items);
                before = items.get(items.size() - 1).id();
            }
            assertThat(walked).as("pages of %d", limit).containsExactlyElementsOf(acmes);
        }
        AuditEntry shops = newestFirst.stream().filter(e -> shop.equals(e.tenant())).findFirst().orElseThrow();
        assertThatThrownBy(() -> log.auditLog(10, shops.id(), acme)).as("another tenant's entry is unknown")
                .isInstanceOf(IllegalArgumentException.class);
        AuditEntry operators = newestFirst.stream().filter(e -> e.tenant() == null).findFirst().orElseThrow();
        assertThatThrownBy(() -> log.auditLog(10, operators.id(), acme)).isInstanceOf(IllegalArgumentException.class);
        int after = newestFirst.indexOf(operators) + 1; // older entries of other tests follow this test's
        assertThat(log.auditLog(15 - after, operators.id(), null)).as("operators page from any entry")
                .containsExactlyElementsOf(newestFirst.subList(after, 15));
    }

    // ------------------------------------------------------------------ retention

    /**
     * Records dated just inside the retention (they would expire an hour from now), so that a backend's own expiry
     * leaves them alone while the test runs; the retention is then moved past them with {@link #expire}.
     */
    @Test
    void recordsAreKeptThirtyDaysAfterTheirLastChange() {
        long t = System.currentTimeMillis() - RETENTION.toMillis() + Duration.ofHours(1).toMillis();
        BulkOperation old = new BulkOperation(newId(), Kind.REPLAY, "topic=a", State.DONE, 1, 1, 0, "alice",
                t - 60_000, t, false, null);
        BulkOperation reported = new BulkOperation(newId(), Kind.PURGE, "topic=b", State.RUNNING, 5, 0, 0, "alice",
                t - 1_800_000, t - 1_800_000, false, null);
        BulkOperation fresh = new BulkOperation(newId(), Kind.REPLAY, "topic=c", State.DONE, 1, 1, 0, "alice",
                t + Duration.ofDays(2).toMillis(), t + Duration.ofDays(2).toMillis(), false, null);
        AuditEntry older = new AuditEntry(newId(), t, "alice", "job.cancel", "orders/1", 1, null);
        AuditEntry old2 = new AuditEntry(newId(), t + 1, "alice", "job.cancel", "orders/2", 1, null);
        AuditEntry keeper = new AuditEntry(newId(), t + Duration.ofDays(2).toMillis(), "alice", "job.cancel",
                "orders/3", 1, null);
        log.save(old);
        log.save(reported);
        log.save(fresh);
        log.report(reported.progressed(3, 0, null, t)); // its last change is at t, not when it was saved
        log.audit(older);
        log.audit(old2);
        log.audit(keeper);

        expire(archive, t + RETENTION.toMillis() - 60_000);
        assertThat(log.operation(old.id())).isPresent();
        assertThat(log.operation(reported.id())).as("kept from its last report").isPresent();
        // other test classes on the backend may have entries in between: a subsequence, in this order
        assertThat(log.auditLog(DeadLetterQuery.MAX_LIMIT, keeper.id())).containsSubsequence(old2, older);

        expire(archive, t + RETENTION.toMillis() + 60_000);
        assertThat(log.operation(old.id())).isEmpty();
        assertThat(log.operation(reported.id())).isEmpty();
        assertThat(log.operation(fresh.id())).contains(fresh);
        assertThat(log.auditLog(DeadLetterQuery.MAX_LIMIT, keeper.id())).doesNotContain(old2, older);
        assertThat(log.auditLog(DeadLetterQuery.MAX_LIMIT, null)).doesNotContain(old2, older);
    }

    // ------------------------------------------------------------------ unavailable backend

    @Test
    void anUnreachableBackendAnswersUnavailable() {
        JobArchive down;
        try {
            down = newUnreachableArchive();
        } catch (StoreException e) {
            assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
            return;
        }
        try (JobArchive a = down) {
            OperatorLog offline = a.operatorLog();
            BulkOperation op = running(base);
            List<Runnable> calls = List.of(
                    () -> offline.save(op),
                    () -> offline.report(op.progressed(1, 0, null, base + 1)),
                    () -> offline.requestCancel(op.id()),
                    () -> offline.operation(op.id()),
                    () -> offline.operations(10),
                    () -> offline.audit(new AuditEntry(newId(), base, "alice", "job.cancel", "orders/1", 1, null)),
                    () -> offline.auditLog(10, null),
                    () -> offline.auditLog(10, "some-entry"),
                    () -> offline.operations(10, "acme"),
                    () -> offline.operation(op.id(), "acme"),
                    () -> offline.requestCancel(op.id(), "acme"),
                    () -> offline.auditLog(10, null, "acme"),
                    () -> offline.auditLog(10, "some-entry", "acme"));
            for (Runnable call : calls) {
                assertThatThrownBy(call::run).isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
                    assertThat(e.getMessage()).as("says what failed").isNotBlank();
                });
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private static String newId() {
        return UUID.randomUUID().toString();
    }

    /** A replay just started at {@code createdAt}: 10 letters to go. */
    private static BulkOperation running(long createdAt) {
        return new BulkOperation(newId(), Kind.REPLAY, "topic=orders&status=503", State.RUNNING, 10, 0, 0, "alice",
                createdAt, createdAt, false, null);
    }

    private static BulkOperation withId(BulkOperation op, String id) {
        return new BulkOperation(id, op.kind(), op.filter(), op.state(), op.total(), op.done(), op.failed(),
                op.startedBy(), op.createdAt(), op.updatedAt(), op.cancelRequested(), op.lastError(), op.tenant());
    }

    private static BulkOperation ofTenant(BulkOperation op, String tenant) {
        return new BulkOperation(op.id(), op.kind(), op.filter(), op.state(), op.total(), op.done(), op.failed(),
                op.startedBy(), op.createdAt(), op.updatedAt(), op.cancelRequested(), op.lastError(), tenant);
    }
}
