package io.delayq.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Expiry and the causes of dead jobs (issue 29), as every {@link JobStore} promises them, run against a real backend
 * by each store module. Each test works in its own topic; run times and expiries are set in the past by the store's
 * own clock ({@link JobStore#now()}), so nothing waits.
 */
public abstract class ExpiryContract {
    private static final String PAYLOAD = "{\"remind\":\"dentist\"}";

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    protected JobStore store;
    protected String topic;

    @BeforeEach
    void open() {
        store = newStore();
        topic = "exp-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aDueJobPastItsOwnExpiryIsNotLeasedButDeadWithCauseExpired() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "late", PAYLOAD, now - 5_000, 3).withExpiresAt(now - 1_000));
        store.enqueue(NewJob.at(topic, "fresh", PAYLOAD, now - 5_000, 3).withExpiresAt(now + 600_000));

        ReserveResult r = store.reserve(topic, Delivery.PULL, 10, 30_000);

        assertThat(r.leases()).extracting(l -> l.job().id()).containsExactly("fresh");
        assertThat(r.leases().get(0).job().expiresAt()).isEqualTo(now + 600_000);
        assertThat(r.expired()).isEqualTo(1);
        Job late = store.find(new JobRef(topic, "late")).orElseThrow();
        assertThat(late.state()).isEqualTo(JobState.DEAD);
        assertThat(late.cause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(late.attempts()).as("no attempt was made").isZero();
        assertThat(late.lastError()).contains("expired");
        assertThat(late.finishedAt()).isNotNull();
        assertThat(late.expiresAt()).isEqualTo(now - 1_000);
        assertThat(outboxOf(topic)).extracting(e -> e.job().id()).containsExactly("late");
        assertThat(outboxOf(topic).get(0).job().cause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(store.stats(topic).dead()).isEqualTo(1);
        assertThat(store.stats(topic).scheduled()).isZero();
        assertThat(store.stats(topic).leased()).isEqualTo(1);
    }

    @Test
    void theTopicsExpiresAfterCountsFromTheRunTimeAndTheJobsOwnExpiryComesFirst() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "old", PAYLOAD, now - 10_000, 3).withDelivery(Delivery.PUSH));
        store.enqueue(NewJob.at(topic, "recent", PAYLOAD, now - 100, 3).withDelivery(Delivery.PUSH));
        // its own expiry is later than run time + expiresAfter: the job's own wins
        store.enqueue(NewJob.at(topic, "own", PAYLOAD, now - 10_000, 3).withDelivery(Delivery.PUSH)
                .withExpiresAt(now + 600_000));

        ReserveResult r = store.reserve(topic, Delivery.PUSH, 10, 30_000, 5_000);

        assertThat(r.leases()).extracting(l -> l.job().id()).containsExactlyInAnyOrder("recent", "own");
        assertThat(r.expired()).isEqualTo(1);
        assertThat(store.find(new JobRef(topic, "old")).orElseThrow().cause()).isEqualTo(DeadCause.EXPIRED);
    }

    @Test
    void aRetryIsCheckedAgainstTheExpiryWhenItComesDue() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "r", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 300));
        Lease first = store.reserve(topic, Delivery.PULL, 1, 30_000).leases().get(0);
        assertThat(store.nack(LeaseRef.of(first), Failure.retryAfter(0, "boom", 500))).isEqualTo(StoreStatus.OK);
        long deadline = System.currentTimeMillis() + 5_000;
        while (store.now() <= now + 300 && System.currentTimeMillis() < deadline) {
            sleep(20);
        }
        ReserveResult again = store.reserve(topic, Delivery.PULL, 1, 30_000);
        assertThat(again.leases()).isEmpty();
        Job dead = store.find(new JobRef(topic, "r")).orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.cause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(dead.attempts()).isEqualTo(1);
    }

    @Test
    void aLeaseTakenBackAfterTheJobsExpiryEndsTheJobExpiredInsteadOfAnotherAttempt() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "retry", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 300));
        // on its last attempt an expired lease would be tried once more (EXPIRED_LAST_ATTEMPT_RETRIES): not past expiry
        store.enqueue(NewJob.at(topic, "last", PAYLOAD, now - 1_000, 1).withExpiresAt(now + 300));
        store.enqueue(NewJob.at(topic, "alive", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 600_000));
        assertThat(store.reserve(topic, Delivery.PULL, 3, 100).leases()).hasSize(3);
        waitForStoreClockPast(now + 300);

        ReclaimedLeases reclaimed = store.reclaimLeases(topic, 10);

        assertThat(reclaimed).isEqualTo(new ReclaimedLeases(3, 2));
        for (String id : List.of("retry", "last")) {
            Job job = store.find(new JobRef(topic, id)).orElseThrow();
            assertThat(job.state()).as(id).isEqualTo(JobState.DEAD);
            assertThat(job.cause()).as(id).isEqualTo(DeadCause.EXPIRED);
            assertThat(job.attempts()).as(id + ": its one attempt").isEqualTo(1);
            assertThat(job.lastError()).as(id).contains("expired");
            assertThat(job.history()).as(id).last().satisfies(a -> assertThat(a.error()).isEqualTo("lease expired"));
        }
        assertThat(store.find(new JobRef(topic, "alive")).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(outboxOf(topic)).extracting(e -> e.job().id()).containsExactlyInAnyOrder("retry", "last");
        assertThat(outboxOf(topic)).extracting(e -> e.job().cause()).containsOnly(DeadCause.EXPIRED);
        TopicStats stats = store.stats(topic);
        assertThat(stats.dead()).isEqualTo(2);
        assertThat(stats.leased()).isZero();
        assertThat(stats.scheduled()).isEqualTo(1);
        assertThat(store.reserve(topic, Delivery.PULL, 10, 30_000).leases()).extracting(l -> l.job().id())
                .containsExactly("alive");
    }

    @Test
    void aFailedAttemptWhoseRetryWouldComeAfterTheExpiryEndsTheJobExpired() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "late-retry", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 60_000));
        store.enqueue(NewJob.at(topic, "in-time", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 60_000));
        store.enqueue(NewJob.at(topic, "held-late", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 60_000));
        store.enqueue(NewJob.at(topic, "no-expiry", PAYLOAD, now - 1_000, 5));
        for (Lease l : reserveAll(4)) {
            NackOutcome outcome = switch (l.job().id()) {
                case "late-retry", "no-expiry" -> store.nackOutcome(LeaseRef.of(l),
                        Failure.retryAfter(120_000, "HTTP 500", 500));
                case "in-time" -> store.nackOutcome(LeaseRef.of(l), Failure.retryAfter(1_000, "HTTP 500", 500));
                default -> store.nackOutcome(LeaseRef.of(l), Failure.held(120_000, "circuit open"));
            };
            boolean expires = l.job().id().endsWith("-late") || l.job().id().equals("late-retry");
            assertThat(outcome).as(l.job().id()).isEqualTo(new NackOutcome(StoreStatus.OK, expires));
        }
        Job late = store.find(new JobRef(topic, "late-retry")).orElseThrow();
        assertThat(late.state()).isEqualTo(JobState.DEAD);
        assertThat(late.cause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(late.attempts()).isEqualTo(1);
        assertThat(late.history()).singleElement().satisfies(a -> assertThat(a.httpStatus()).isEqualTo(500));
        Job held = store.find(new JobRef(topic, "held-late")).orElseThrow();
        assertThat(held.cause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(held.attempts()).as("a hold uses no attempt").isZero();
        assertThat(store.find(new JobRef(topic, "in-time")).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(store.find(new JobRef(topic, "no-expiry")).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(outboxOf(topic)).extracting(e -> e.job().id()).containsExactlyInAnyOrder("late-retry", "held-late");
        assertThat(store.stats(topic).dead()).isEqualTo(2);
        assertThat(store.stats(topic).scheduled()).isEqualTo(2);
    }

    @Test
    void aFailureThatEndsTheJobAnywayKeepsItsCauseAfterTheExpiry() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "gone", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 200));
        Lease lease = reserveAll(1).get(0);
        waitForStoreClockPast(now + 200);

        NackOutcome outcome = store.nackOutcome(LeaseRef.of(lease),
                Failure.dead("callback answered HTTP 410", 410, DeadCause.NO_RETRY));

        assertThat(outcome).isEqualTo(new NackOutcome(StoreStatus.OK, false));
        assertThat(store.find(new JobRef(topic, "gone")).orElseThrow().cause()).isEqualTo(DeadCause.NO_RETRY);
    }

    @Test
    void anAckBeforeTheLeaseEndsSucceedsEvenAfterTheExpiryPassed() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "done", PAYLOAD, now - 1_000, 5).withExpiresAt(now + 200));
        Lease lease = reserveAll(1).get(0);
        waitForStoreClockPast(now + 200);

        assertThat(store.ack(List.of(LeaseRef.of(lease)))).containsExactly(StoreStatus.OK);

        assertThat(store.find(new JobRef(topic, "done")).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(store.reclaimLeases(topic, 10)).isEqualTo(ReclaimedLeases.NONE);
    }

    @Test
    void theSweepEndsExpiredDueJobsThatNobodyReservesAndLeavesTheOthers() {
        long now = store.now();
        store.enqueue(NewJob.at(topic, "gone", PAYLOAD, now - 9_000, 3).withExpiresAt(now - 1));
        store.enqueue(NewJob.at(topic, "topic-default", PAYLOAD, now - 9_000, 3));
        store.enqueue(NewJob.at(topic, "waits", PAYLOAD, now - 10, 3));
        store.enqueue(NewJob.at(topic, "future", PAYLOAD, now + 600_000, 3).withExpiresAt(now + 600_001));

        assertThat(store.expireOverdue(topic, Delivery.PUSH, 100, 5_000)).as("the other lane").isZero();
        assertThat(store.expireOverdue(topic, Delivery.PULL, 100, 5_000)).isEqualTo(2);

        assertThat(store.find(new JobRef(topic, "gone")).orElseThrow().cause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(store.find(new JobRef(topic, "topic-default")).orElseThrow().cause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(store.find(new JobRef(topic, "waits")).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(store.find(new JobRef(topic, "future")).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(outboxOf(topic)).extracting(e -> e.job().id()).containsExactlyInAnyOrder("gone", "topic-default");
        assertThat(store.stats(topic).scheduled()).isEqualTo(2);
        assertThat(store.stats(topic).dead()).isEqualTo(2);
        assertThat(store.reserve(topic, Delivery.PULL, 10, 30_000).leases()).extracting(l -> l.job().id())
                .containsExactly("waits");
    }

    @Test
    void anExpiryIsPartOfWhatTheProducerSaidSoARepeatWithAnotherOneConflicts() {
        long now = store.now();
        NewJob job = NewJob.at(topic, "idem", PAYLOAD, now + 60_000, 3).withExpiresAt(now + 120_000);
        assertThat(store.enqueue(job).created()).isTrue();
        assertThat(store.enqueue(job).status()).isEqualTo(StoreStatus.OK);
        assertThat(store.enqueue(job.withExpiresAt(now + 130_000)).status()).isEqualTo(StoreStatus.CONFLICT);
        assertThat(store.find(new JobRef(topic, "idem")).orElseThrow().expiresAt()).isEqualTo(now + 120_000);
    }

    @Test
    void eachWayToDieRecordsItsCause() {
        store.enqueue(NewJob.delayed(topic, "exhausted", PAYLOAD, 0, 1));
        store.enqueue(NewJob.delayed(topic, "no-retry", PAYLOAD, 0, 5));
        store.enqueue(NewJob.delayed(topic, "no-callback", PAYLOAD, 0, 5));
        List<Lease> leases = reserveAll(3);
        for (Lease l : leases) {
            Failure failure = switch (l.job().id()) {
                case "exhausted" -> Failure.retryAfter(1_000, "HTTP 500", 500);
                case "no-retry" -> Failure.dead("callback answered HTTP 410", 410, DeadCause.NO_RETRY);
                default -> Failure.dead("no callback", null, DeadCause.NO_CALLBACK);
            };
            assertThat(store.nack(LeaseRef.of(l), failure)).isEqualTo(StoreStatus.OK);
        }
        assertThat(store.find(new JobRef(topic, "exhausted")).orElseThrow().cause())
                .isEqualTo(DeadCause.ATTEMPTS_EXHAUSTED);
        Job noRetry = store.find(new JobRef(topic, "no-retry")).orElseThrow();
        assertThat(noRetry.state()).isEqualTo(JobState.DEAD);
        assertThat(noRetry.cause()).isEqualTo(DeadCause.NO_RETRY);
        assertThat(noRetry.attempts()).as("in one attempt").isEqualTo(1);
        assertThat(store.find(new JobRef(topic, "no-callback")).orElseThrow().cause())
                .isEqualTo(DeadCause.NO_CALLBACK);
        assertThat(outboxOf(topic)).extracting(e -> e.job().cause()).containsExactlyInAnyOrder(
                DeadCause.ATTEMPTS_EXHAUSTED, DeadCause.NO_RETRY, DeadCause.NO_CALLBACK);
    }

    @Test
    void aPostponedAttemptKeepsItsNumberAndItsStatusAndNeverDies() {
        store.enqueue(NewJob.delayed(topic, "busy", PAYLOAD, 0, 1));
        Lease lease = reserveAll(1).get(0);
        assertThat(store.nack(LeaseRef.of(lease), Failure.postponed(0, "callback answered HTTP 429, Retry-After 0 s",
                429))).isEqualTo(StoreStatus.OK);
        Job job = store.find(new JobRef(topic, "busy")).orElseThrow();
        assertThat(job.state()).as("on its only attempt, not dead").isEqualTo(JobState.SCHEDULED);
        assertThat(job.attempts()).isZero();
        assertThat(job.cause()).isNull();
        assertThat(job.history()).singleElement().satisfies(a -> {
            assertThat(a.httpStatus()).isEqualTo(429);
            assertThat(a.held()).isTrue();
        });
        assertThat(reserveAll(1).get(0).attempt()).isEqualTo(1);
    }

    @Test
    void aLiveJobHasNoCause() {
        store.enqueue(NewJob.delayed(topic, "alive", PAYLOAD, 60_000, 1));
        Job job = store.find(new JobRef(topic, "alive")).orElseThrow();
        assertThat(job.cause()).isNull();
        assertThat(job.deadCause()).isNull();
        assertThat(job.expiresAt()).isNull();
    }

    private List<Lease> reserveAll(int n) {
        List<Lease> leases = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 5_000;
        while (leases.size() < n && System.currentTimeMillis() < deadline) {
            leases.addAll(store.reserve(topic, Delivery.PULL, n - leases.size(), 30_000).leases());
            if (leases.size() < n) {
                sleep(10);
            }
        }
        assertThat(leases).hasSize(n);
        return leases;
    }

    /** This topic's outbox entries (other test classes share the outbox). */
    private List<OutboxEntry> outboxOf(String t) {
        List<OutboxEntry> mine = new ArrayList<>();
        for (OutboxEntry e : store.readOutbox(100_000)) {
            if (e.ref().topic().equals(t)) {
                mine.add(e);
            }
        }
        return mine;
    }

    private void waitForStoreClockPast(long ms) {
        long deadline = System.currentTimeMillis() + 5_000;
        while (store.now() <= ms && System.currentTimeMillis() < deadline) {
            sleep(20);
        }
        assertThat(store.now()).isGreaterThan(ms);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
