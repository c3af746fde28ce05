package io.delayq.core;

import org.junit.jupiter.api.Test;

import io.dropwizard.util.Duration;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NewJobTest {
    @Test
    void theFingerprintCoversWhatTheProducerSaid() {
        NewJob job = NewJob.delayed("t", "a", "{}", 1_000, 3);
        assertThat(job.fingerprint()).isEqualTo(NewJob.delayed("t", "a", "{}", 1_000, 3).fingerprint()).hasSize(24);
        assertThat(job.fingerprint()).isNotEqualTo(NewJob.delayed("t", "a", "{ }", 1_000, 3).fingerprint());
        assertThat(job.fingerprint()).isNotEqualTo(NewJob.delayed("t", "a", "{}", 1_001, 3).fingerprint());
        assertThat(job.fingerprint()).isNotEqualTo(NewJob.delayed("t", "a", "{}", 1_000, 4).fingerprint());
        assertThat(job.fingerprint()).isNotEqualTo(job.withDelivery(Delivery.PUSH).fingerprint());
        NewJob h1 = new NewJob("t", "a", "{}", 0L, null, 1, null, new Callback("http://x", Map.of("a", "1", "b", "2")), null, false, Delivery.PUSH);
        NewJob h2 = new NewJob("t", "a", "{}", 0L, null, 1, null, new Callback("http://x", Map.of("b", "2", "a", "1")), null, false, Delivery.PUSH);
        assertThat(h1.fingerprint()).as("header order does not matter").isEqualTo(h2.fingerprint());
    }

    /**
     * Stores persist fingerprints (a repeated enqueue is compared with the stored one), so the digest of a job must
     * never change: these are the values the first implementation computed, whatever way it is computed now.
     */
    @Test
    void fingerprintsStayThoseStoresHold() {
        assertThat(NewJob.delayed("t", "a", "{}", 1_000, 3).fingerprint()).isEqualTo("90ca7c7e80e9a865746fd98d");
        assertThat(NewJob.at("orders", "o-42", "{\"orderId\":42,\"note\":\"é\"}", 1_900_000_000_000L, 5).fingerprint())
                .isEqualTo("abf74b653b7813ba3b32694f");
        assertThat(new NewJob("t", "a", "[1,2.50,\"x\"]", 0L, null, 8,
                new Backoff.Schedule(List.of(Duration.seconds(15), Duration.minutes(3))),
                new Callback("https://hooks.example.com/d", Map.of("b", "2", "a", "1")), 30_000L, true, Delivery.PUSH)
                .fingerprint()).isEqualTo("692cd49493997e4d1c3d75bd");
        assertThat(new NewJob("t", "a", "{}", 0L, null, 1, null, null, null, false, Delivery.PULL, null,
                new Callback("https://ops.example.com/dead", Map.of("X-Team", "pay"))).fingerprint())
                .isEqualTo("88df6db0391a4873d3cdfaf9");
    }

    /** Request threads compute fingerprints side by side: each gets the digest of its own job, as computed alone. */
    @Test
    void concurrentFingerprintsAreEachTheirJobs() throws Exception {
        String[] expected = new String[500];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = NewJob.delayed("t", "a", "{\"i\":" + i + "}", 1_000, 3).fingerprint();
        }
        assertThat(Set.of(expected)).hasSize(expected.length);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> mismatches = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int offset = t;
                mismatches.add(pool.submit(() -> {
                    int wrong = 0;
                    for (int n = 0; n < 5_000; n++) {
                        int i = (n * 7 + offset) % expected.length;
                        if (!NewJob.delayed("t", "a", "{\"i\":" + i + "}", 1_000, 3).fingerprint().equals(expected[i])) {
                            wrong++;
                        }
                    }
                    return wrong;
                }));
            }
            for (Future<Integer> f : mismatches) {
                assertThat(f.get()).isZero();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void exactlyOneTimeIsGiven() {
        assertThatThrownBy(() -> new NewJob("t", "a", "{}", 1L, 2L, 1, null, null, null, false, Delivery.PULL))
                .hasMessageContaining("exactly one");
        assertThatThrownBy(() -> new NewJob("t", "a", "{}", null, null, 1, null, null, null, false, Delivery.PULL))
                .hasMessageContaining("exactly one");
        assertThatThrownBy(() -> NewJob.delayed("t", "a", "{}", 0, 0)).hasMessageContaining("maxAttempts");
    }

    @Test
    void storeStatusesBecomeExceptionsWithMessages() {
        JobRef ref = new JobRef("t", "a");
        StoreException.check(StoreStatus.OK, ref, "x");
        assertThatThrownBy(() -> StoreException.check(StoreStatus.NOT_FOUND, ref, "cancelled")).hasMessageContaining("t/a does not exist");
        assertThatThrownBy(() -> StoreException.check(StoreStatus.NOT_IN_STATE, ref, "cancelled")).hasMessageContaining("cannot be cancelled");
        assertThat(JobState.DEAD.isFinal()).isTrue();
        assertThat(JobState.LEASED.isFinal()).isFalse();
        assertThat(Failure.dead("x", null).isDead()).isTrue();
        assertThatThrownBy(() -> Failure.retryAfter(-1, "x", null)).isInstanceOf(IllegalArgumentException.class);
    }
}
