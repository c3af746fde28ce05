package io.delayq.service.delivery;

import io.delayq.core.JobStore;
import io.delayq.core.LeaseRef;
import io.delayq.core.StoreStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Collects acknowledgements of successful deliveries and sends them to the store in batches: when {@code batchSize}
 * are waiting, or {@code flushInterval} after the first of a batch arrived. One store call per batch instead of one
 * per job; the wait costs nothing but a few ms of lease time.
 *
 * <p>An ack must reach the store before its lease ends, or the store takes the lease back as a failed attempt
 * although the callback answered 2xx. So an ack whose lease ends within {@code flushInterval} plus the time a write
 * needs ({@link AttemptBudget#recordingMs()}) is written at once, with whatever else is waiting, instead of waiting
 * for its batch.
 *
 * <p>An ack that cannot be written (store unreachable) is retried while its lease lasts; after that the lease expires
 * and the job is delivered again — at least once, never lost. {@link #close()} writes what is pending on the
 * caller's thread at once, without waiting for a scheduled flush.
 */
final class AckBatcher {
    private static final Logger LOG = LoggerFactory.getLogger(AckBatcher.class);
    private static final long RETRY_MS = 200;

    private record Pending(LeaseRef lease, long deadline) {
    }

    private final JobStore store;
    private final int batchSize;
    private final long flushIntervalNanos;
    private final LongSupplier storeNow;
    private final AttemptBudget budget;
    private final StoreWriteTimes writeTimes;
    private final ScheduledExecutorService executor;
    private final Object lock = new Object();
    private List<Pending> pending = new ArrayList<>();
    private boolean flushScheduled;
    private volatile boolean closed;
    private volatile long lastFailureLog;

    /**
     * @param storeNow   the store's clock (epoch ms), which lease deadlines are in
     * @param budget     how long writing an ack needs
     * @param writeTimes where the time of every ack write is recorded
     */
    AckBatcher(JobStore store, int batchSize, long flushIntervalNanos, LongSupplier storeNow, AttemptBudget budget,
               StoreWriteTimes writeTimes) {
        this.store = store;
        this.batchSize = batchSize;
        this.flushIntervalNanos = Math.max(0, flushIntervalNanos);
        this.storeNow = storeNow;
        this.budget = budget;
        this.writeTimes = writeTimes;
        var pool = new ScheduledThreadPoolExecutor(1, Threads.named("delayq-delivery-acks", true));
        pool.setRemoveOnCancelPolicy(true);
        // close() writes what is pending itself: a flush scheduled for later must not hold the stop up.
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.executor = pool;
    }

    /** Queues an ack; false when the batcher is closed (the lease will expire and the job come back). */
    boolean add(LeaseRef lease, long deadline) {
        if (closed) {
            return false;
        }
        boolean flushNow;
        boolean schedule = false;
        long flushIntervalMs = flushIntervalNanos / 1_000_000;
        boolean leaseEndsFirst = deadline - storeNow.getAsLong() <= flushIntervalMs + budget.recordingMs();
        synchronized (lock) {
            pending.add(new Pending(lease, deadline));
            flushNow = pending.size() >= batchSize || leaseEndsFirst;
            if (!flushNow && !flushScheduled) {
                flushScheduled = true;
                schedule = true;
            }
        }
        try {
            if (flushNow) {
                executor.execute(this::flush);
            } else if (schedule) {
                executor.schedule(this::flush, flushIntervalNanos, TimeUnit.NANOSECONDS);
            }
        } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
            // close() flushes what is pending
        }
        return true;
    }

    /** Writes everything pending now, on the caller's thread. */
    void flush() {
        List<Pending> batch;
        synchronized (lock) {
            flushScheduled = false;
            if (pending.isEmpty()) {
                return;
            }
            batch = pending;
            pending = new ArrayList<>();
        }
        for (int from = 0; from < batch.size(); from += batchSize) {
            write(batch.subList(from, Math.min(batch.size(), from + batchSize)));
        }
    }

    private void write(List<Pending> batch) {
        List<LeaseRef> refs = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            refs.add(p.lease());
        }
        try {
            long start = System.nanoTime();
            List<StoreStatus> statuses = store.ack(refs);
            writeTimes.record(System.nanoTime() - start);
            for (int i = 0; i < statuses.size(); i++) {
                if (statuses.get(i) != StoreStatus.OK && LOG.isDebugEnabled()) {
                    LOG.debug("ack of {} answered {}: the lease had expired or the job was cancelled",
                            refs.get(i).job(), statuses.get(i));
                }
            }
        } catch (RuntimeException e) {
            long now = System.currentTimeMillis();
            if (now - lastFailureLog > 10_000) {
                lastFailureLog = now;
                LOG.warn("could not acknowledge {} delivered jobs ({}); retrying while their leases last,"
                        + " after that they will be delivered again", batch.size(), e.toString());
            }
            retryLater(batch);
        }
    }

    private void retryLater(List<Pending> batch) {
        if (closed) {
            return;
        }
        long now = storeNow.getAsLong();
        List<Pending> alive = new ArrayList<>();
        for (Pending p : batch) {
            if (p.deadline() > now + RETRY_MS) {
                alive.add(p);
            }
        }
        if (alive.isEmpty()) {
            return;
        }
        try {
            executor.schedule(() -> write(alive), RETRY_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
            // leases expire; the jobs come back
        }
    }

    int pendingCount() {
        synchronized (lock) {
            return pending.size();
        }
    }

    /**
     * Refuses later acks, waits for a write in progress (up to 5 s), then writes everything pending on this thread.
     * The engine calls it once no attempt can succeed any more and before the store is closed.
     */
    void close() {
        closed = true;
        executor.shutdown(); // drops the scheduled flush: pending acks are written just below
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flush();
    }
}
