package io.delayq.core;

import io.delayq.core.ratelimit.Grant;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.core.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every store's {@link RateLimiters} promises, run against a real backend by each store module. Each test uses
 * keys of its own. Times are the store's ({@link JobStore#now()}), so the bounds hold however the test's own clock
 * runs.
 */
public abstract class RateLimitersContract {

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    protected JobStore store;
    protected RateLimiters limiters;
    private String key;

    @BeforeEach
    void open() {
        store = newStore();
        limiters = store.rateLimiters();
        key = "test:" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aNewBucketGrantsItsBurstThenTellsWhenTheNextPermitComes() {
        Rate rate = new Rate(10, 5);
        assertThat(limiters.take(key, rate, 3)).isEqualTo(new Grant(3, 0));
        Grant rest = limiters.take(key, rate, 4);
        assertThat(rest.granted()).as("two left of five, plus what 10/s refilled meanwhile").isBetween(2, 4);

        Grant empty = drain(rate);
        assertThat(empty.granted()).isZero();
        assertThat(empty.retryAfterMs()).as("one permit comes every 100 ms").isBetween(1L, 100L);
    }

    @Test
    void aPartialGrantSaysWhenMoreComes() {
        Rate rate = new Rate(2, 4);
        Grant grant = limiters.take(key, rate, 10);
        assertThat(grant.granted()).isEqualTo(4);
        assertThat(grant.retryAfterMs()).isBetween(1L, 500L);
    }

    @Test
    void anEmptyBucketRefillsAtTheRate() throws InterruptedException {
        Rate rate = new Rate(20, 1);
        // read before the drain: what refills between the drain and the loop is granted in the loop too
        long start = store.now();
        drain(rate);
        int granted = 0;
        while (store.now() - start < 1_000) {
            Grant g = limiters.take(key, rate, 1);
            granted += g.granted();
            if (g.granted() == 0) {
                Thread.sleep(Math.max(1, g.retryAfterMs()));
            }
        }
        long elapsed = store.now() - start;
        // never more than the rate allows; at least half of it, which a loaded machine's slow round trips and late
        // wake-ups still reach (each permit is taken only when the loop comes round)
        assertThat(granted).as("20/s over %d ms", elapsed).isBetween(10, (int) (1 + 20 * elapsed / 1000));
    }

    @Test
    void concurrentTakersNeverGetMoreThanTheBurstPlusTheRate() throws Exception {
        Rate rate = new Rate(100, 20);
        AtomicInteger granted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        long start = store.now();
        try {
            List<Future<?>> takers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                takers.add(pool.submit(() -> {
                    while (store.now() - start < 1_000) {
                        granted.addAndGet(limiters.take(key, rate, 3).granted());
                    }
                    return null;
                }));
            }
            for (Future<?> f : takers) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        long elapsed = store.now() - start;
        assertThat(granted.get()).as("burst 20 + 100/s over %d ms", elapsed)
                .isLessThanOrEqualTo((int) (20 + Math.ceil(100 * elapsed / 1000.0)))
                .isGreaterThanOrEqualTo(100);
    }

    @Test
    void bucketsOfOtherKeysAreIndependent() {
        Rate rate = new Rate(1, 2);
        assertThat(limiters.take(key, rate, 2).granted()).isEqualTo(2);
        assertThat(limiters.take(key + "-other", rate, 2).granted()).isEqualTo(2);
        assertThat(limiters.take(key, rate, 1).granted()).isZero();
    }

    @Test
    void aSmallerBurstCutsAFullerBucketDown() {
        assertThat(limiters.take(key, new Rate(1, 10), 1).granted()).isEqualTo(1);
        assertThat(limiters.take(key, new Rate(1, 3), 10).granted()).isEqualTo(3);
    }

    @Test
    void aLargerBurstGrantsOnlyWhatTheRateRefilled() {
        Rate small = new Rate(1, 2);
        assertThat(limiters.take(key, small, 2).granted()).isEqualTo(2);
        assertThat(limiters.take(key, new Rate(1, 100), 100).granted())
                .as("an empty bucket given a larger burst is not filled up by it").isLessThanOrEqualTo(1);
    }

    @Test
    void aNewRateTakesEffectAtTheNextTake() {
        drain(new Rate(1, 5));
        long drained = store.now();
        while (store.now() - drained < 30) {
            Await.sleep(5);
        }
        assertThat(limiters.take(key, new Rate(1_000, 5), 5).granted())
                .as("30 ms at 1,000/s refill the whole burst; at 1/s they would refill nothing").isEqualTo(5);
    }

    @Test
    void aBucketLeftAloneIsFullAgainAfterItsFullTime() {
        Rate rate = new Rate(100, 5);
        drain(rate);
        long drained = store.now();
        while (store.now() - drained <= rate.fullAfterMs()) {
            Await.sleep(10);
        }
        Grant full = limiters.take(key, rate, 10);
        assertThat(full.granted()).as("full, and no more than full").isEqualTo(5);
        assertThat(full.retryAfterMs()).as("one permit every 10 ms").isBetween(1L, 10L);
    }

    @Test
    void keysOfOneTo512CharactersAreTakenFromAndOthersRefused() {
        Rate rate = new Rate(1, 1);
        String longest = (key + "-" + "k".repeat(RateLimiters.MAX_KEY_CHARS)).substring(0, RateLimiters.MAX_KEY_CHARS);
        assertThat(limiters.take(longest, rate, 1).granted()).isEqualTo(1);
        assertThat(limiters.take(longest, rate, 1).granted()).as("the same bucket").isZero();

        assertThatThrownBy(() -> limiters.take(longest + "x", rate, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("512");
        assertThatThrownBy(() -> limiters.take("", rate, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiters.take(null, rate, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiters.take(key, rate, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiters.take(key, null, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    private Grant drain(Rate rate) {
        Grant g = limiters.take(key, rate, rate.burst());
        while (g.granted() > 0) {
            g = limiters.take(key, rate, rate.burst());
        }
        return g;
    }
}
