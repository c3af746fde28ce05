package io.delayq.postgres.archive;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.OutboxEntry;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureGroup;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.Page;
import io.delayq.postgres.StatementFiles;
import io.dropwizard.jackson.Jackson;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import javax.sql.DataSource;

/**
 * The {@link JobArchive} on PostgreSQL: dead letters in {@code delayq_dead_letters}, other finished jobs in
 * {@code delayq_completed_jobs} (migration V3), one statement per operation ({@link ArchiveStatements}), and a
 * background reaper for completed jobs and tombstones past their retention. storage-postgres/README.md has the schema
 * and which statement uses which index.
 *
 * <p>The same promises as the MongoDB archive: keys {@code <topic>/<id>/<createdAt>} ({@link DeadLetter#keyOf}), so the
 * same outbox entry written twice is one row and each life of a job id is its own letter; replays and the dead notice
 * set only on insert, so a rewrite never wipes one; a purge leaves a tombstone in the letter's row, which a late write
 * leaves alone.
 * {@link #write} returns once its transaction has committed durably. A backend that cannot be reached is a
 * {@link StoreException} with {@link StoreStatus#UNAVAILABLE}; a value PostgreSQL refuses (a data error, not an outage)
 * is an {@link IllegalArgumentException}, so that the archiver sets that entry aside instead of waiting for an outage
 * to end.
 */
public final class PostgresJobArchive implements JobArchive {
    /** Meters of the reaper: completed jobs and tombstones dropped after their retention. */
    public static final String REAPED_COMPLETED_METER = "delayq.archive.reaped.completed";
    public static final String REAPED_TOMBSTONES_METER = "delayq.archive.reaped.tombstones";

    private static final Logger LOG = LoggerFactory.getLogger(PostgresJobArchive.class);
    /** Letters per purge statement: a purge of a whole topic is many short transactions, not one long one. */
    static final int PURGE_BATCH = 1_000;
    /** Letters per batch of the signature backfill; the reaper signs at most one batch per pass. */
    static final int SIGN_BATCH = 500;
    /** Most failure groups one call answers. */
    static final int MAX_GROUPS = 1_000;
    private static final long HOUR_MS = 3_600_000L;

    private final ArchiveStatements statements;
    private final SignatureBackfill backfill;
    private final ArchiveRows rows = new ArchiveRows(Jackson.newObjectMapper());
    private final PostgresArchiveOptions options;
    private final ScheduledExecutorService reaper;
    private final Meter reapedCompleted;
    private final Meter reapedTombstones;
    private final PostgresOperatorLog operatorLog;
    private volatile Runnable onClose = () -> { };

    /**
     * An archive on a database whose schema is migrated ({@link io.delayq.postgres.SchemaMigrations#apply}).
     *
     * @param dataSource pooled connections (not owned: see {@link #onClose})
     * @param metrics    where the reaper's meters go
     */
    PostgresJobArchive(DataSource dataSource, PostgresArchiveOptions options, MetricRegistry metrics) {
        Jdbi jdbi = StatementFiles.jdbi(dataSource);
        rows.register(jdbi);
        this.statements = jdbi.onDemand(ArchiveStatements.class);
        this.backfill = new SignatureBackfill(statements, rows);
        this.options = options;
        this.reapedCompleted = metrics.meter(REAPED_COMPLETED_METER);
        this.reapedTombstones = metrics.meter(REAPED_TOMBSTONES_METER);
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-postgres-archive-reaper");
            t.setDaemon(true);
            return t;
        });
        long every = options.reaperInterval().toMillis();
        reaper.scheduleWithFixedDelay(this::reap, every, every, TimeUnit.MILLISECONDS);
        this.operatorLog = new PostgresOperatorLog(jdbi, options, reaper);
    }

    /**
     * Connects to {@code jdbc:postgresql://…} (sharing the pool of a store on the same URL and user), applies missing
     * migrations, and returns a ready archive that lets go of the pool when it closes. For tools and tests; the
     * service builds its archive through {@link PostgresJobArchiveFactory}.
     */
    public static PostgresJobArchive connect(String jdbcUrl, String user, String password,
                                             PostgresArchiveOptions options) {
        PostgresJobArchiveFactory factory = new PostgresJobArchiveFactory();
        factory.setDatabase(PostgresJobArchiveFactory.defaultDatabase());
        factory.getDatabase().setUrl(jdbcUrl);
        factory.getDatabase().setUser(user);
        factory.getDatabase().setPassword(password);
        factory.setOptions(options);
        return factory.connect(new MetricRegistry());
    }

    /** Run once when the archive closes, after the reaper stopped: the factory releases the pool here. */
    void onClose(Runnable action) {
        this.onClose = action;
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void write(List<OutboxEntry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        // One row per key (the same entry twice in a batch is one record, and one statement cannot change a row
        // twice), sorted, so that concurrent archivers lock rows in one order and never deadlock.
        Map<String, Job> dead = new TreeMap<>();
        Map<String, Job> done = new TreeMap<>();
        for (OutboxEntry entry : entries) {
            if (!entry.isReadable()) {
                throw new IllegalArgumentException("outbox entry " + entry.entryId() + " (" + entry.ref()
                        + ") cannot be read, so it cannot be archived: " + entry.unreadable().reason());
            }
            Job job = entry.job();
            (job.state() == JobState.DEAD ? dead : done).put(DeadLetter.keyOf(job), job);
        }
        Columns d = new Columns(dead);
        Columns c = new Columns(done);
        ArchiveCalls.call("write " + entries.size() + " finished jobs", () -> statements.write(
                d.keys, d.topics, d.ids, d.finishedAt, d.jobs, d.payloads,
                d.signatureIds, d.kinds, d.messages, d.hosts, d.statuses, d.noticed,
                c.keys, c.topics, c.ids, c.states, c.finishedAt, c.jobs, c.payloads,
                options.completedRetention().toMillis()));
    }

    /** A batch of jobs as the write statement's arrays. */
    private final class Columns {
        final String[] keys;
        final String[] topics;
        final String[] ids;
        final String[] states;
        final Long[] finishedAt;
        final String[] jobs;
        final String[] payloads;
        // what the dashboard queries (V5), for dead letters
        final String[] signatureIds;
        final String[] kinds;
        final String[] messages;
        final String[] hosts;
        final Integer[] statuses;
        // V11: a dead job with an onDead target gets a pending notice
        final Boolean[] noticed;

        Columns(Map<String, Job> byKey) {
            int n = byKey.size();
            keys = byKey.keySet().toArray(String[]::new);
            topics = new String[n];
            ids = new String[n];
            states = new String[n];
            finishedAt = new Long[n];
            jobs = new String[n];
            payloads = new String[n];
            signatureIds = new String[n];
            kinds = new String[n];
            messages = new String[n];
            hosts = new String[n];
            statuses = new Integer[n];
            noticed = new Boolean[n];
            int i = 0;
            for (Job job : byKey.values()) {
                topics[i] = job.topic();
                ids[i] = job.id();
                states[i] = job.state().name();
                finishedAt[i] = job.finishedAt(); // null: the database's now
                jobs[i] = rows.jobJson(job);
                payloads[i] = job.payload();
                if (job.state() == JobState.DEAD) {
                    ArchiveRows.Signed signed = ArchiveRows.Signed.of(job);
                    signatureIds[i] = signed.id();
                    kinds[i] = signed.kind();
                    messages[i] = signed.message();
                    hosts[i] = signed.host();
                    statuses[i] = signed.httpStatus();
                    noticed[i] = job.onDead() != null;
                }
                i++;
            }
        }
    }

    @Override
    public boolean recordReplay(String key, int expectedReplayCount, DeadLetter.Replay replay) {
        String json = rows.replayJson(replay);
        return ArchiveCalls.call("record a replay of dead letter " + key,
                () -> statements.recordReplay(key, expectedReplayCount, json)) == 1;
    }

    /** A compare and set on the notice's attempts, in one UPDATE of the letter's row (record_notice.sql). */
    @Override
    public boolean recordNotice(String key, int expectedAttempts, DeadNotice notice) {
        return ArchiveCalls.call("record the dead notice of " + key, () -> statements.recordNotice(key,
                expectedAttempts, notice.state().name(), notice.attempts(), notice.nextAttemptAt(),
                notice.deliveredAt(), ArchiveRows.noticeError(notice), notice.lastStatus())) == 1;
    }

    @Override
    public long purgeDeadLetters(JobRef ref) {
        return purge("purge the dead letters of " + ref, DeadLetterFilter.job(ref));
    }

    @Override
    public long purgeDeadLetters(DeadLetterQuery filter) {
        return purge("purge dead letters", DeadLetterFilter.purge(filter));
    }

    /**
     * Tombstones every live letter the filter matches, {@value #PURGE_BATCH} per statement (each its own transaction).
     * When PostgreSQL fails part-way, the batches before stay purged and the caller's retry purges the rest.
     */
    private long purge(String what, DeadLetterFilter filter) {
        long retention = options.tombstoneRetention().toMillis();
        long purged = 0;
        int n;
        do {
            n = ArchiveCalls.call(what, () -> statements.purge(filter.conditions(), filter.binds(), retention, PURGE_BATCH));
            purged += n;
        } while (n == PURGE_BATCH);
        return purged;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<Job> find(JobRef ref) {
        return ArchiveCalls.call("find job " + ref, () -> statements.find(ref.topic(), ref.id()));
    }

    @Override
    public Page<DeadLetter> deadLetters(DeadLetterQuery query) {
        DeadLetterFilter filter = DeadLetterFilter.listing(query);
        List<DeadLetter> items = ArchiveCalls.call("list dead letters",
                () -> statements.deadLetters(filter.conditions(), filter.binds(), query.limit() + 1));
        if (items.size() <= query.limit()) {
            return new Page<>(items, null);
        }
        items = items.subList(0, query.limit());
        return new Page<>(items, DeadLetterCursor.after(items.get(items.size() - 1)));
    }

    @Override
    public long countDeadLetters(DeadLetterQuery filter) {
        DeadLetterFilter conditions = DeadLetterFilter.purge(filter);
        return ArchiveCalls.call("count dead letters",
                () -> statements.countDeadLetters(conditions.conditions(), conditions.binds()));
    }

    /** One statement: GROUP BY on the signature columns written with each letter (failure_groups.sql). */
    @Override
    public List<FailureGroup> failureGroups(DeadLetterQuery filter, int limit, long nowMs) {
        if (limit < 1 || limit > MAX_GROUPS) {
            throw new IllegalArgumentException("group limit is " + limit + "; use 1 to " + MAX_GROUPS);
        }
        DeadLetterFilter conditions = DeadLetterFilter.purge(filter);
        long now = DeadLetterFilter.clamp(nowMs);
        return ArchiveCalls.call("group dead letters by failure", () -> statements.failureGroups(conditions.conditions(),
                conditions.binds(), DeadLetterFilter.clamp(now - HOUR_MS), now, limit));
    }

    /**
     * Signs every dead letter archived without a failure signature (before V5, or by an older instance), in batches
     * of {@value #SIGN_BATCH} ({@link SignatureBackfill}). The factory runs it when the archive starts, and each
     * reaper pass signs a batch of what an older instance may have written since.
     *
     * @return how many letters it signed
     */
    public long signUnsignedDeadLetters() {
        return signUnsignedDeadLetters(SIGN_BATCH);
    }

    long signUnsignedDeadLetters(int batch) {
        return ArchiveCalls.call("compute the failure signatures of older dead letters",
                () -> backfill.run(batch, Integer.MAX_VALUE));
    }

    /** An index range of the pending notices only (due_notices.sql, V11's partial index). */
    @Override
    public List<DeadLetter> dueNotices(long nowMs, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("notice limit is " + limit + "; use 1 or more");
        }
        long now = DeadLetterFilter.clamp(nowMs);
        return ArchiveCalls.call("find the dead notices due", () -> statements.dueNotices(now, limit));
    }

    @Override
    public Optional<DeadLetter> deadLetter(JobRef ref) {
        return ArchiveCalls.call("find the dead letter of " + ref, () -> statements.deadLetterOfJob(ref.topic(), ref.id()));
    }

    @Override
    public Optional<DeadLetter> deadLetter(String key) {
        return ArchiveCalls.call("find dead letter " + key, () -> statements.deadLetter(key));
    }

    /** The database's clock, epoch ms: the health check's question. */
    public long now() {
        return ArchiveCalls.call("read the clock", statements::now);
    }

    // ---------------------------------------------------------------- reaper

    /**
     * One reaper pass: completed jobs, then tombstones, past their expiry by the database's clock, in batches (at
     * most {@link PostgresArchiveOptions#REAPER_STATEMENTS_PER_PASS} of each). A failed pass is logged and retried at
     * the next one: nothing depends on the reaper but the tables' size.
     */
    void reap() {
        try {
            reapedCompleted.mark(drain(() -> statements.reapCompleted(null, options.reaperBatch()),
                    PostgresArchiveOptions.REAPER_STATEMENTS_PER_PASS));
            reapedTombstones.mark(drain(() -> statements.reapTombstones(null, options.reaperBatch()),
                    PostgresArchiveOptions.REAPER_STATEMENTS_PER_PASS));
            backfill.run(SIGN_BATCH, 1);
        } catch (RuntimeException e) {
            LOG.debug("archive reaper pass failed, retried at the next one: {}", e.toString());
        }
    }

    /**
     * What the reaper does, to the end and as if the time were {@code nowMs}: drops every completed job and tombstone
     * whose expiry is before it. For tests and tools.
     *
     * @return how many rows were dropped
     */
    public long expire(long nowMs) {
        return ArchiveCalls.call("drop completed jobs and tombstones past their retention", () ->
                drain(() -> statements.reapCompleted(nowMs, options.reaperBatch()), Integer.MAX_VALUE)
                        + (long) drain(() -> statements.reapTombstones(nowMs, options.reaperBatch()), Integer.MAX_VALUE));
    }

    private int drain(IntSupplier batch, int maxStatements) {
        int total = 0;
        for (int i = 0; i < maxStatements; i++) {
            int n = batch.getAsInt();
            total += n;
            if (n < options.reaperBatch()) {
                break;
            }
        }
        return total;
    }

    @Override
    public io.delayq.core.archive.OperatorLog operatorLog() {
        return operatorLog;
    }

    @Override
    public void close() {
        reaper.shutdownNow();
        try {
            // a statement in flight finishes before the pool it uses is let go
            reaper.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        onClose.run();
    }

    // ---------------------------------------------------------------- helpers
}
