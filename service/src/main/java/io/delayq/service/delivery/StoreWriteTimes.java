package io.delayq.service.delivery;

import java.util.concurrent.TimeUnit;

/**
 * How long the store has lately taken to record an attempt's outcome (an ack batch, a nack): the slowest such call
 * of the last 10 to 20 s. The engine keeps at least that much (twice it, plus a floor) at the end of every lease for
 * recording the outcome, so that a slow store shortens the HTTP attempt rather than turning a delivered job into an
 * expired lease.
 */
final class StoreWriteTimes {
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    private long windowStart = System.nanoTime();
    private long currentMax;
    private long previousMax;
    private volatile long recentMaxNanos;

    /** Records one store write that took {@code nanos}. */
    synchronized void record(long nanos) {
        long now = System.nanoTime();
        // Two windows, so that one slow call is forgotten after 10 to 20 s instead of counting for ever.
        if (now - windowStart > WINDOW_NANOS) {
            previousMax = currentMax;
            currentMax = 0;
            windowStart = now;
        }
        currentMax = Math.max(currentMax, nanos);
        recentMaxNanos = Math.max(currentMax, previousMax);
    }

    /** The slowest recent store write, ms rounded up. */
    long recentMaxMs() {
        return (recentMaxNanos + 999_999) / 1_000_000;
    }
}
