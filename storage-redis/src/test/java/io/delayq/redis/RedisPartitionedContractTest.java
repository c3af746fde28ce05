package io.delayq.redis;

import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;
import io.delayq.redis.testing.TestRedis;

import java.time.Duration;
import java.util.Map;

/** The store contract again with every topic split over three partitions (three hash tags, three cluster slots). */
class RedisPartitionedContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri(),
                RedisStoreOptions.defaults().withPartitions(3, Map.of()));
    }

    @Override
    protected JobStore newStoreWithRetention(long retentionMs) {
        return RedisJobStore.connect(TestRedis.sharedUri(), RedisStoreOptions.defaults().withPartitions(3, Map.of()).withFinishedRetention(Duration.ofMillis(retentionMs))
                .withTrimInterval(Duration.ofMillis(100)));
    }

    @Override
    protected JobStore newUnreachableStore() {
        return RedisJobStore.connect("redis://127.0.0.1:1");
    }

    @Override
    protected void makeUnreadable(JobStore store, JobRef ref) {
        RedisFixtures.makeUnreadable((RedisJobStore) store, ref);
    }
}
