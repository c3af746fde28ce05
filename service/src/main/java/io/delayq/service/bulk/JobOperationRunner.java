package io.delayq.service.bulk;

import io.delayq.core.Job;
import io.delayq.core.JobStore;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.OperatorLog;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.service.audit.AuditTrail;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs bulk operations on a topic's jobs (cancel, run now, reschedule) in the background on this instance, the way
 * {@link BulkOperationRunner} runs replays: a page of {@link #BATCH} jobs of the listing ({@link JobStore#listJobs})
 * at a time, each job acted on, progress reported to the archive's {@link OperatorLog} after each page, a pause
 * between pages, and a stop at the next page when any instance asked to cancel. Counting (the dry run) walks the same
 * listing page by page: many bounded store calls, never one that reads the whole topic.
 */
public final class JobOperationRunner implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(JobOperationRunner.class);
    static final int BATCH = 100;

    private final JobStore store;
    private final JobArchive archive;
    private final LongSupplier clock;
    private final OperationEnd ends;
    private final long pauseMs;
    private final ExecutorService workers;

    /** @param pauseMs pause between pages: the throttle ({@code BATCH} jobs per pause at most) */
    public JobOperationRunner(JobStore store, JobArchive archive, AuditTrail audit, LongSupplier clock, long pauseMs) {
        this.store = store;
        this.archive = archive;
        this.clock = clock;
        this.ends = new OperationEnd(audit, clock);
        this.pauseMs = pauseMs;
        this.workers = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "delayq-bulk-job-operation");
            t.setDaemon(true);
            return t;
        });
    }

    /** How many jobs match {@code query} now: the listing walked to its end, {@link JobQuery#MAX_LIMIT} a page. */
    long count(JobQuery query) {
        JobQuery q = query.withLimit(JobQuery.MAX_LIMIT);
        long n = 0;
        String cursor = null;
        do {
            JobPage page = store.listJobs(q.withCursor(cursor));
            n += page.items().size();
            cursor = page.nextCursor();
        } while (cursor != null);
        return n;
    }

    /** Starts {@code op} (already saved as RUNNING) over the jobs of {@code query}. */
    void start(BulkOperation op, JobQuery query, JobAction action) {
        workers.execute(() -> run(op, query.withLimit(BATCH).withCursor(null), action));
    }

    private void run(BulkOperation start, JobQuery query, JobAction action) {
        OperatorLog log = archive.operatorLog();
        BulkOperation op = start;
        Set<String> actedOn = new HashSet<>();
        String cursor = null;
        long done = 0;
        long failed = 0;
        try {
            while (true) {
                JobPage page = store.listJobs(query.withCursor(cursor));
                String error = null;
                for (Job job : page.items()) {
                    if (action.moves() && !actedOn.add(job.id())) {
                        continue; // moved by this operation already, and met again further on
                    }
                    try {
                        action.apply(store, job);
                        done++;
                    } catch (StoreException e) {
                        if (e.status() == StoreStatus.UNAVAILABLE) {
                            throw e;
                        }
                        failed++; // finished or gone since it was listed
                        error = "job " + job.id() + ": " + e.getMessage();
                    } catch (IllegalArgumentException refused) {
                        failed++; // the action refused this job (moved past its expiresAt), left as it was
                        error = "job " + job.id() + ": " + refused.getMessage();
                    }
                }
                cursor = page.nextCursor();
                boolean finished = cursor == null;
                Optional<BulkOperation> stored = log.report(op.progressed(done, failed, error, clock.getAsLong()));
                if (stored.isEmpty()) {
                    LOG.warn("bulk operation {} vanished from the operator log; stopping it", op.id());
                    return;
                }
                op = stored.get();
                if (finished) {
                    end(log, op, BulkOperation.State.DONE);
                    return;
                }
                if (op.cancelRequested()) {
                    end(log, op, BulkOperation.State.CANCELLED);
                    return;
                }
                Thread.sleep(pauseMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ends.failed(log, op, done, failed, "stopped: the service shut down");
        } catch (RuntimeException e) {
            LOG.warn("bulk operation {} failed after {} jobs", op.id(), done, e);
            ends.failed(log, op, done, failed, e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    private void end(OperatorLog log, BulkOperation op, BulkOperation.State state) {
        log.report(op.finished(state, clock.getAsLong()));
        LOG.info("bulk operation {} ({}) {}: {} done, {} failed", op.id(), op.kind().wireName(), state, op.done(),
                op.failed());
        ends.audited(op, state);
    }

    @Override
    public void stop() throws InterruptedException {
        workers.shutdownNow();
        workers.awaitTermination(5, TimeUnit.SECONDS);
    }
}
