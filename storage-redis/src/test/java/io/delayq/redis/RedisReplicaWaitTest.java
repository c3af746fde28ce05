package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code minReplicas} on the shared standalone server, which has no replica: every write told to a caller must then
 * fail with UNAVAILABLE naming the shortfall, after at most {@code replicaTimeout}; reads and reserve are not held up.
 * (Replicas that do acknowledge: {@link RedisReplicatedClusterTest}.)
 */
class RedisReplicaWaitTest {
    private final String uri = TestRedis.sharedUri();
    private final String topic = "wait-" + UUID.randomUUID();
    private final RedisJobStore plain = RedisJobStore.connect(uri,
            RedisStoreOptions.defaults().withPartitions(1, Map.of(topic, 2)));
    private final RedisJobStore waiting = RedisJobStore.connect(uri, RedisStoreOptions.defaults()
            .withPartitions(1, Map.of(topic, 2)).withMinReplicas(1, Duration.ofMillis(50)));

    @AfterEach
    void close() {
        plain.close();
        waiting.close();
    }

    @Test
    void everyAcknowledgedWriteWaitsForTheReplicasAndSaysItMayNotSurviveAFailover() {
        plain.enqueue(List.of(NewJob.delayed(topic, "a", "{}", 0, 3), NewJob.delayed(topic, "b", "{}", 0, 3),
                NewJob.delayed(topic, "c", "{}", 0, 3), NewJob.delayed(topic, "d", "{}", 60_000, 3),
                NewJob.delayed(topic, "e", "{}", 60_000, 3)));
        List<Lease> leases = waiting.reserve(topic, Delivery.PULL, 10, 60_000).leases();
        assertThat(leases).as("reserve does not wait").hasSize(3);

        assertUnavailable(() -> waiting.enqueue(NewJob.delayed(topic, "new1", "{}", 0, 3)));
        assertUnavailable(() -> waiting.enqueue(List.of(NewJob.delayed(topic, "new2", "{}", 0, 3),
                NewJob.delayed(topic, "new3", "{}", 0, 3))));
        assertUnavailable(() -> waiting.ack(List.of(LeaseRef.of(leases.get(0)))));
        assertUnavailable(() -> waiting.nack(LeaseRef.of(leases.get(1)), Failure.retryAfter(1_000, "x", null)));
        assertUnavailable(() -> waiting.extend(LeaseRef.of(leases.get(2)), 60_000));
        assertUnavailable(() -> waiting.cancel(new JobRef(topic, "d")));
        assertUnavailable(() -> waiting.reschedule(new JobRef(topic, "e"), 1_000L, null));
        assertUnavailable(() -> waiting.putSettings(topic, TopicSettings.empty()));
        assertUnavailable(() -> waiting.updateSettings(topic, s -> s));

        // the writes themselves were made (on the master): what the caller cannot know is whether they would survive
        assertThat(plain.find(new JobRef(topic, "d")).orElseThrow().state().name()).isEqualTo("CANCELLED");
    }

    @Test
    void withoutMinReplicasNothingWaits() {
        plain.enqueue(NewJob.delayed(topic, "x", "{}", 0, 3));
        assertThat(plain.find(new JobRef(topic, "x"))).isPresent();
    }

    private static void assertUnavailable(Executable call) {
        long started = System.nanoTime();
        assertThatThrownBy(call::execute).isInstanceOfSatisfying(StoreException.class, e -> {
            assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
            assertThat(e.getMessage()).contains("write reached 0 of 1 replica(s) within 50 ms")
                    .contains("may or may not survive a failover");
        });
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    }
}
