package io.delayq.core;

import org.junit.jupiter.api.Test;

import java.util.Map;

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
