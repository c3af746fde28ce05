package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Lease;
import io.delayq.core.NewJob;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Reserve over partitions: a partition always full of older jobs does not starve another. */
class RedisReserveFairnessTest {
    private final String topic = "fair-" + UUID.randomUUID();
    private final RedisJobStore store = RedisJobStore.connect(TestRedis.sharedUri(),
            RedisStoreOptions.defaults().withPartitions(1, Map.of(topic, 2)));

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aPartitionWithAnAlwaysOlderBacklogDoesNotStarveTheOther() {
        long now = store.now();
        List<NewJob> full = new ArrayList<>();
        List<NewJob> other = new ArrayList<>();
        for (int i = 0; full.size() < 300 || other.size() < 5; i++) {
            String id = "j" + i;
            // partition 0 holds a backlog due an hour ago, partition 1 a few jobs due just now
            if (store.partition(topic, id).index() == 0 && full.size() < 300) {
                full.add(NewJob.at(topic, id, "{}", now - 3_600_000 + i, 3));
            } else if (store.partition(topic, id).index() == 1 && other.size() < 5) {
                other.add(NewJob.at(topic, id, "{}", now - 1, 3));
            }
        }
        store.enqueue(full);
        store.enqueue(other);

        List<Lease> first = store.reserve(topic, Delivery.PULL, 20, 60_000).leases();
        assertThat(first).hasSize(20);
        assertThat(first).filteredOn(l -> store.partition(topic, l.job().id()).index() == 1)
                .as("the newer partition's floor of 20 / (2 × 2)").hasSize(5);
        assertThat(first).filteredOn(l -> store.partition(topic, l.job().id()).index() == 0)
                .as("the rest by age").hasSize(15);
        assertThat(first).extracting(l -> l.job().runAt()).isSorted();
    }
}
