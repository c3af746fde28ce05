package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.LeaseRef;
import io.delayq.core.LeaseToken;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.delayq.core.testing.Await;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A topic's partition count is recorded in Redis when a job or settings are first written, never by a read: reads of
 * caller-chosen topic names leave nothing behind, in Redis or in the store's caches.
 */
class RedisTopicCountTest {
    private final String uri = TestRedis.sharedUri();
    private final RedisFixtures raw = new RedisFixtures(uri);
    private final RedisJobStore store = RedisJobStore.connect(uri);

    @AfterEach
    void close() {
        store.close();
        raw.close();
    }

    /** A registration a failover lost (acknowledged by a master, not yet on its replica) comes back by itself. */
    @Test
    void aRegistrationTheRegistryLostIsWrittenAgainWithinSeconds() {
        String topic = "t-" + UUID.randomUUID();
        store.enqueue(NewJob.delayed(topic, "j", "{}", 60_000, 3));
        raw.redis().srem(RedisKeys.TOPICS, topic);
        raw.redis().hdel(RedisKeys.PARTITIONS, topic);
        Await.until("the topic registered again, with its count", TopicRegistry.REPAIR_EVERY_MS + 5_000,
                () -> raw.redis().sismember(RedisKeys.TOPICS, topic)
                        && "1".equals(raw.redis().hget(RedisKeys.PARTITIONS, topic)));
        assertThat(store.topics()).contains(topic);
    }

    @Test
    void readsOfAnUnknownTopicWriteNothing() {
        String topic = "t-" + UUID.randomUUID();
        JobRef ref = new JobRef(topic, "nobody");
        LeaseRef lease = new LeaseRef(ref, LeaseToken.random());

        assertThat(store.find(ref)).isEmpty();
        assertThat(store.stats(topic).scheduled()).isZero();
        assertThat(store.settings(topic)).isEqualTo(TopicSettings.empty());
        assertThat(store.reserve(topic, Delivery.PULL, 5, 1_000).leases()).isEmpty();
        assertThat(store.reserve(topic, Delivery.PUSH, 5, 1_000).leases()).isEmpty();
        assertThat(store.expireLeases(topic, 5)).isZero();
        assertThat(store.nextDueAt(topic, Delivery.PULL)).isEqualTo(-1);
        assertThat(store.nextLeaseDeadline(topic)).isEqualTo(-1);
        assertThat(store.ack(List.of(lease))).containsExactly(StoreStatus.NOT_FOUND);
        assertThat(store.nack(lease, Failure.dead("x", null))).isEqualTo(StoreStatus.NOT_FOUND);
        assertNotFound(() -> store.cancel(ref));
        assertNotFound(() -> store.reschedule(ref, 0L, null));
        assertNotFound(() -> store.extend(lease, 1_000));

        assertThat(raw.redis().hexists(RedisKeys.PARTITIONS, topic)).as("no partition count recorded").isFalse();
        assertThat(raw.redis().sismember(RedisKeys.TOPICS, topic)).isFalse();
        RedisKeys.Partition p = RedisKeys.Partition.of(topic, 0);
        assertThat(raw.redis().exists(p.jobs(), p.schedPush(), p.schedPull(), p.leased(), p.finished(), p.archive(),
                p.stats(), p.quarantine())).as("no key of the topic").isZero();
        assertThat(store.cachedTopics()).as("nothing cached for it").doesNotContain(topic);
    }

    @Test
    void theCountIsRecordedWhenAJobOrSettingsAreWritten() {
        String withJob = "t-" + UUID.randomUUID();
        String withSettings = "t-" + UUID.randomUUID();
        String withUpdate = "t-" + UUID.randomUUID();
        store.enqueue(NewJob.delayed(withJob, "j", "{}", 60_000, 3));
        store.putSettings(withSettings, new TopicSettings(null, 3, null, null, null, null));
        store.updateSettings(withUpdate, current -> new TopicSettings(null, 4, null, null, null, null));

        for (String topic : List.of(withJob, withSettings, withUpdate)) {
            assertThat(raw.redis().hget(RedisKeys.PARTITIONS, topic)).as(topic).isEqualTo("1");
            assertThat(store.cachedTopics()).contains(topic);
        }
    }

    @Test
    void aTopicReadBeforeItsFirstJobUsesTheCountItsWriterRecorded() {
        String topic = "t-" + UUID.randomUUID();
        try (RedisJobStore writer = RedisJobStore.connect(uri, RedisStoreOptions.defaults().withPartitions(3, Map.of()))) {
            assertThat(store.reserve(topic, Delivery.PULL, 100, 60_000).leases()).isEmpty();
            List<NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                jobs.add(NewJob.delayed(topic, "j" + i, "{}", 0, 3));
            }
            writer.enqueue(jobs);
            assertThat(raw.redis().hget(RedisKeys.PARTITIONS, topic)).isEqualTo("3 spread");
            Await.sleep(5);
            assertThat(store.reserve(topic, Delivery.PULL, 100, 60_000).leases()).as("every partition is read").hasSize(30);
        }
    }

    private static void assertNotFound(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.status()).isEqualTo(StoreStatus.NOT_FOUND));
    }
}
