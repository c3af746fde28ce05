package io.delayq.service.breaker;

import io.delayq.core.breaker.CircuitBreakers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The breaker's store writes, on one thread of their own: failures and successes are recorded in the order their
 * answers came (they come on HTTP client threads, which must not block), and the held counts are flushed every second.
 * At most {@value #MAX_QUEUED} writes wait; beyond that a write is dropped with a log line — a circuit's count is soft
 * state, and a store that slow fails the deliveries anyway.
 */
final class CircuitWriter {
    private static final Logger LOG = LoggerFactory.getLogger(CircuitWriter.class);
    private static final int MAX_QUEUED = 10_000;
    private static final long FLUSH_MS = 1_000;
    private static final long ERROR_LOG_MS = 30_000;

    private final CircuitBreakers store;
    private final HeldCounts held;
    private final AtomicInteger queued = new AtomicInteger();
    private volatile ScheduledThreadPoolExecutor thread;
    private volatile long lastErrorLogMs;

    CircuitWriter(CircuitBreakers store, HeldCounts held) {
        this.store = store;
        this.held = held;
    }

    synchronized void start() {
        thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "delayq-breaker");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::flushHeld, FLUSH_MS, FLUSH_MS, TimeUnit.MILLISECONDS);
    }

    /** Runs what is queued, flushes the held counts a last time, and ends the thread (waits up to 5 s). */
    synchronized void stop() {
        if (thread == null) {
            return;
        }
        thread.shutdown(); // queued writes still run; the periodic flush does not
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flushHeld();
        thread = null;
    }

    /**
     * Runs a store write on the breaker's thread; dropped when too many wait or when stopped.
     *
     * @return whether it was queued (it will run)
     */
    boolean write(String what, Runnable write) {
        ScheduledThreadPoolExecutor t = thread;
        if (t == null) {
            return false; // stopped: the engine sends nothing more
        }
        if (queued.incrementAndGet() > MAX_QUEUED) {
            queued.decrementAndGet();
            failed(what, new RejectedExecutionException(MAX_QUEUED + " circuit writes are waiting"));
            return false;
        }
        try {
            t.execute(() -> {
                queued.decrementAndGet();
                try {
                    write.run();
                } catch (RuntimeException e) {
                    failed(what, e);
                }
            });
            return true;
        } catch (RejectedExecutionException stopping) {
            queued.decrementAndGet();
            return false;
        }
    }

    private void flushHeld() {
        try {
            held.flush(store);
        } catch (RuntimeException e) {
            failed("count held jobs", e);
        }
    }

    private void failed(String what, RuntimeException e) {
        long now = System.currentTimeMillis();
        if (now - lastErrorLogMs > ERROR_LOG_MS) {
            lastErrorLogMs = now;
            LOG.warn("circuit breaker: could not {} ({}); further failures in the next {} s are not logged", what,
                    e.toString(), ERROR_LOG_MS / 1_000);
        }
    }
}
