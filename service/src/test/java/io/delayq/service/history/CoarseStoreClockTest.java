package io.delayq.service.history;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The history's clock asks the store at most once a second and carries the reading forward in between. */
class CoarseStoreClockTest {
    /** A store clock a minute ahead of this host's, counting how often it is read. */
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicBoolean down = new AtomicBoolean();
    private final CoarseStoreClock clock = new CoarseStoreClock(() -> {
        if (down.get()) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the store is down");
        }
        reads.incrementAndGet();
        return System.currentTimeMillis() + 60_000;
    });

    @Test
    void manyCountsInASecondAreOneReadOfTheStoresClock() {
        long first = clock.getAsLong();
        long last = first;
        for (int i = 0; i < 10_000; i++) {
            long now = clock.getAsLong();
            assertThat(now).isGreaterThanOrEqualTo(last);
            last = now;
        }
        assertThat(reads.get()).isBetween(1, 2); // a second may pass during the loop on a busy machine
        assertThat(last - System.currentTimeMillis()).as("still the store's time, a minute ahead").isBetween(58_000L, 61_000L);
    }

    @Test
    void aStoreThatIsDownLeavesTheLastReadingCarriedOn() throws Exception {
        clock.getAsLong();
        down.set(true);
        Thread.sleep(1_100); // past the refresh: the next count tries the store, which fails
        assertThat(clock.getAsLong() - System.currentTimeMillis()).isBetween(58_000L, 61_000L);
    }

    @Test
    void withoutAnyReadingTheFailureIsThrown() {
        down.set(true);
        assertThatThrownBy(clock::getAsLong).isInstanceOf(StoreException.class);
    }
}
