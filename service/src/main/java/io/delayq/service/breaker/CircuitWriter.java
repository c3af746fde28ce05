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
 * answers came (they come on HTTP client threads, which must not block), the held jobs and the origins topics use
 * ({@link OriginUses}) are flushed every second, and closed circuits idle for {@code idleExpiry} are forgotten every
 * minute.
 * At most {@value #MAX_QUEUED} writes wait; beyond that a write is dropped with a log line — a circuit's count is soft
 * state, and a store that slow fails the deliveries anyway.
 */
final class CircuitWriter {
    private static final Logger LOG = LoggerFactory.getLogger(CircuitWriter.class);
    private static final int MAX_QUEUED = 10_000;
    private static final long FLUSH_MS = 1_000;
    private static final long ERROR_LOG_MS = 30_000;
    /** How often idle circuits are looked for (at most; half the expiry when that is shorter). */
    private static final long EXPIRE_EVERY_MS = 60_000;
    private static final int EXPIRE_BATCH = 1_000;

    private final CircuitBreakers store;
    private final HeldCounts held;
    private final OriginUses uses;
    private final long idleExpiryMs;
    private final AtomicInteger queued = new AtomicInteger();
    private volatile ScheduledThreadPoolExecutor thread;
    private volatile long lastErrorLogMs;

    CircuitWriter(CircuitBreakers store, HeldCounts held, OriginUses uses, long idleExpiryMs) {
        this.store = store;
        this.held = held;
        this.uses = uses;
        this.idleExpiryMs = idleExpiryMs;
    }

    synchronized void start() {
        thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "delayq-breaker");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::flushHeld, FLUSH_MS, FLUSH_MS, TimeUnit.MILLISECONDS);
        thread.scheduleWithFixedDelay(this::flushUses, FLUSH_MS, FLUSH_MS, TimeUnit.MILLISECONDS);
        long expiryMs = Math.max(FLUSH_MS, Math.min(EXPIRE_EVERY_MS, idleExpiryMs / 2));
        thread.scheduleWithFixedDelay(this::expireIdle, expiryMs, expiryMs, TimeUnit.MILLISECONDS);
    }

    /** Runs what is queued, flushes the held counts and origins a last time, and ends the thread (up to 5 s). */
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
        flushUses();
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

    private void flushUses() {
        try {
            uses.flush(store);
        } catch (RuntimeException e) {
            failed("record the origins topics use", e);
        }
    }

    /**
     * Forgets the closed circuits idle for {@code idleExpiry} (issue 26, finding 5), a bounded batch at a time, until
     * none is left; every instance does it, and the store forgets each circuit once.
     */
    private void expireIdle() {
        try {
            int total = 0;
            int forgotten;
            do {
                forgotten = store.expireIdle(idleExpiryMs, EXPIRE_BATCH);
                total += forgotten;
            } while (forgotten == EXPIRE_BATCH);
            if (total > 0) {
                LOG.info("circuit breaker: forgot {} closed circuits idle for {} s", total, idleExpiryMs / 1_000);
            }
        } catch (RuntimeException e) {
            failed("forget idle circuits", e);
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
