package io.delayq.service.delivery;

import java.time.Instant;

/**
 * The engine's estimate of the store's clock, which is the only clock that decides whether a job is due.
 *
 * <p>Local time is read from {@link System#nanoTime()} anchored once to the wall clock, so it has microsecond
 * resolution and never jumps. Every store answer that carries the store's {@code now} (truncated to the millisecond
 * when the store ran the call) gives a lower bound of the offset: {@code storeNow − localTimeOfReceipt ≤ true offset}.
 * The largest recent lower bound is used, so that the estimate approaches the true offset from below: a timer armed
 * with it fires at, or a fraction of a millisecond after, the due time by the store's clock, never before. Host
 * clocks that disagree by seconds therefore change nothing.
 */
final class StoreClock {
    private static final long WINDOW_MICROS = 10_000_000L;

    private final long baseNanos = System.nanoTime();
    private final long baseEpochMicros;

    private long windowStart;
    private long currentMax = Long.MIN_VALUE;
    private long previousMax = Long.MIN_VALUE;
    private volatile long offsetMicros;

    StoreClock() {
        Instant now = Instant.now();
        baseEpochMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** Local time, epoch microseconds, monotonic. */
    long localMicros() {
        return baseEpochMicros + (System.nanoTime() - baseNanos) / 1_000;
    }

    /**
     * Records a store answer.
     *
     * @param storeNowMillis the store's clock when it ran the call
     * @param receivedMicros {@link #localMicros()} right after the answer arrived
     */
    synchronized void observe(long storeNowMillis, long receivedMicros) {
        long sample = storeNowMillis * 1_000L - receivedMicros;
        // Windows let the estimate follow a store clock that is stepped back (otherwise an old maximum would stay).
        if (currentMax == Long.MIN_VALUE || receivedMicros - windowStart > WINDOW_MICROS) {
            previousMax = currentMax;
            currentMax = sample;
            windowStart = receivedMicros;
        } else if (sample > currentMax) {
            currentMax = sample;
        }
        offsetMicros = Math.max(currentMax, previousMax);
    }

    /** Store time minus local time, a lower bound, microseconds. */
    long offsetMicros() {
        return offsetMicros;
    }

    /** The store's clock as estimated now, epoch ms (never ahead of the real store clock by more than noise). */
    long storeNowMillis() {
        return Math.floorDiv(localMicros() + offsetMicros, 1_000L);
    }

    /** The local time, epoch microseconds, at which the store's clock reaches {@code storeMillis}. */
    long localMicrosAt(long storeMillis) {
        return storeMillis * 1_000L - offsetMicros;
    }
}
