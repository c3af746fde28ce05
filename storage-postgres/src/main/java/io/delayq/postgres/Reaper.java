package io.delayq.postgres;

import io.delayq.core.history.TopicMinute;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The store's background thread that keeps its tables from growing: finished jobs past the retention, minutes of the
 * topic history older than {@link TopicMinute#RETENTION_MS}, old broadcast rows, and token buckets full again
 * ({@link PostgresRateLimiters}), each dropped in bounded batches.
 */
final class Reaper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);
    private static final int STATEMENTS_PER_PASS = 10;

    private final JobTransitions transitions;
    private final JobQueries queries;
    private final PostgresRateLimiters buckets;
    private final PostgresStoreOptions options;
    private final ScheduledExecutorService thread;

    /** Starts the thread: a pass every {@link PostgresStoreOptions#reaperInterval()}. */
    Reaper(JobTransitions transitions, JobQueries queries, PostgresRateLimiters buckets, PostgresStoreOptions options) {
        this.transitions = transitions;
        this.queries = queries;
        this.buckets = buckets;
        this.options = options;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-postgres-reaper");
            t.setDaemon(true);
            return t;
        });
        long every = options.reaperInterval().toMillis();
        thread.scheduleWithFixedDelay(this::reap, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * One pass: up to {@value #STATEMENTS_PER_PASS} statements of {@link PostgresStoreOptions#reaperBatch()} rows for
     * finished jobs and as many for the history and for idle token buckets, one for broadcasts. A failed pass is logged and retried at the next
     * one: nothing depends on the reaper but the tables' size.
     */
    void reap() {
        try {
            long retention = options.finishedRetention().toMillis();
            for (int i = 0; i < STATEMENTS_PER_PASS; i++) {
                if (transitions.trim(retention, options.reaperBatch()) < options.reaperBatch()) {
                    break;
                }
            }
            for (int i = 0; i < STATEMENTS_PER_PASS; i++) {
                if (transitions.trimHistory(TopicMinute.RETENTION_MS, options.reaperBatch()) < options.reaperBatch()) {
                    break;
                }
            }
            queries.trimBroadcasts(options.reaperBatch());
            for (int i = 0; i < STATEMENTS_PER_PASS; i++) {
                if (buckets.trim(options.reaperBatch()) < options.reaperBatch()) {
                    break;
                }
            }
        } catch (JdbiException e) {
            LOG.debug("reaper pass failed, retried at the next one: {}", e.toString());
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
