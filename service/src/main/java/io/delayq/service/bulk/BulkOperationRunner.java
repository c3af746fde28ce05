package io.delayq.service.bulk;

import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.BulkReplayResult;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.OperatorLog;
import io.delayq.service.audit.AuditTrail;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs bulk operations in the background on this instance. A replay goes in batches of {@link #BATCH} letters with a
 * pause between them (so an operation over 100,000 letters does not crowd out delivery or the archiver), reporting
 * progress to the archive's {@link OperatorLog} after each batch, where every instance reads it, and stopping at the
 * next batch when any instance has asked to cancel. A purge is one purge by the filter (the archive batches it), so it
 * cannot be cancelled (the resource refuses with 409) and reports its count once, at the end; while the archive works
 * on it, a {@link Heartbeat} reports it alive every {@link #HEARTBEAT_MS} ms, so that a long purge is not shown as
 * stalled. An operation whose instance dies stays {@code RUNNING} in the log and is shown as
 * stalled; replaying its filter again is safe (its filter says replayed=false unless it was started for the replayed
 * letters, so a repeat skips the letters replayed already).
 */
public final class BulkOperationRunner implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(BulkOperationRunner.class);
    static final int BATCH = 100;
    /** How often a purge in progress says it is alive: three times within the time after which it looks stalled. */
    static final long HEARTBEAT_MS = BulkOperation.STALE_AFTER_MS / 3;

    private final JobArchive archive;
    private final DeadLetterReplayer replayer;
    private final LongSupplier clock;
    private final OperationEnd ends;
    private final long pauseMs;
    private final ExecutorService workers;
    private final ScheduledExecutorService heartbeats;

    /**
     * @param audit   where the end of each operation is recorded, with its final count (its start records the dry
     *                run's count)
     * @param pauseMs pause between batches: the throttle ({@code BATCH} letters per pause at most)
     */
    public BulkOperationRunner(JobArchive archive, DeadLetterReplayer replayer, AuditTrail audit, LongSupplier clock,
                               long pauseMs) {
        this.archive = archive;
        this.replayer = replayer;
        this.clock = clock;
        this.ends = new OperationEnd(audit, clock);
        this.pauseMs = pauseMs;
        this.workers = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "delayq-bulk-operation");
            t.setDaemon(true);
            return t;
        });
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-bulk-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts {@code op} (already saved as RUNNING) over the letters of {@code query}. */
    void start(BulkOperation op, DeadLetterQuery query, Long delayMs) {
        workers.execute(() -> run(op, query, delayMs));
    }

    private void run(BulkOperation start, DeadLetterQuery query, Long delayMs) {
        OperatorLog log = archive.operatorLog();
        BulkOperation op = start;
        String cursor = null;
        long done = 0;
        long failed = 0;
        try {
            while (true) {
                String error = null;
                boolean finished;
                if (op.kind() == BulkOperation.Kind.REPLAY) {
                    // The query's replayed filter is the operation's own (resolved when it started): taken as given.
                    BulkReplayResult r = replayer.replayAll(query.withCursor(cursor), delayMs, true, BATCH);
                    done += r.replayed() + r.alreadyReplayed();
                    failed += r.failed();
                    if (!r.failures().isEmpty()) {
                        RuntimeException last = r.failures().get(r.failures().size() - 1).error();
                        error = last == null ? "a letter could not be replayed" : last.getMessage();
                    }
                    if (r.stopped() != null) {
                        error = r.stopped();
                    }
                    cursor = r.nextCursor();
                    finished = !r.more() || (r.stopped() == null && r.letters().isEmpty());
                } else {
                    // One purge by the filter itself: exact (a purge per job id of a listed page would also remove
                    // that id's letters outside the filter) and one archive call, which purges in bounded batches
                    // on its side. Its progress is reported once, when it returns.
                    try (Heartbeat alive = new Heartbeat(heartbeats, log, op, clock, HEARTBEAT_MS)) {
                        done += archive.purgeDeadLetters(query);
                    }
                    finished = true;
                }
                Optional<BulkOperation> stored = log.report(op.progressed(done, failed, error, clock.getAsLong()));
                if (stored.isEmpty()) {
                    LOG.warn("bulk operation {} vanished from the operator log; stopping it", op.id());
                    return;
                }
                op = stored.get();
                if (finished) {
                    log.report(op.finished(BulkOperation.State.DONE, clock.getAsLong()));
                    LOG.info("bulk operation {} ({}) done: {} done, {} failed", op.id(), op.kind(), done, failed);
                    ends.audited(op, BulkOperation.State.DONE);
                    return;
                }
                if (op.cancelRequested()) {
                    log.report(op.finished(BulkOperation.State.CANCELLED, clock.getAsLong()));
                    LOG.info("bulk operation {} cancelled after {} letters", op.id(), done);
                    ends.audited(op, BulkOperation.State.CANCELLED);
                    return;
                }
                Thread.sleep(pauseMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ends.failed(log, op, done, failed, "stopped: the service shut down");
        } catch (RuntimeException e) {
            LOG.warn("bulk operation {} failed after {} letters", op.id(), done, e);
            ends.failed(log, op, done, failed, e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    @Override
    public void stop() throws InterruptedException {
        heartbeats.shutdownNow();
        workers.shutdownNow();
        workers.awaitTermination(5, TimeUnit.SECONDS);
    }
}
