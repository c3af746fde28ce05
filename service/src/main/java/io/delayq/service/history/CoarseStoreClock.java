package io.delayq.service.history;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The store's clock as the history needs it, to put counts into the store's minutes: read from the store at most once
 * a second and carried forward with the local monotonic clock in between. Asking the store on every count was a store
 * round trip for every job enqueued and two for every job delivered, on the paths {@link TopicActivity} says only count
 * in memory. Between two readings the estimate drifts only by the two clocks' rates, far below a minute's resolution.
 *
 * <p>When a reading fails (the store is down) the last one is carried on, so that counting never fails a request or
 * a delivery; without any reading yet, the failure is thrown.
 */
public final class CoarseStoreClock implements LongSupplier {
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

    private record Reading(long storeMillis, long atNanos) {
    }

    private final LongSupplier store;
    private volatile Reading last;

    /** @param store the store's clock, epoch ms (e.g. {@code JobStore::now}) */
    public CoarseStoreClock(LongSupplier store) {
        this.store = store;
    }

    @Override
    public long getAsLong() {
        long now = System.nanoTime();
        Reading reading = last;
        if (reading == null || now - reading.atNanos() >= REFRESH_NANOS) {
            try {
                long storeMillis = store.getAsLong();
                last = new Reading(storeMillis, now);
                return storeMillis;
            } catch (RuntimeException e) {
                if (reading == null) {
                    throw e;
                }
            }
        }
        return reading.storeMillis() + (now - reading.atNanos()) / 1_000_000L;
    }
}
