package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;

import java.util.Map;

/** The store contract again with every topic split over three partitions (three hash tags, three cluster slots). */
class RedisPartitionedContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(EmbeddedRedis.sharedTestUri(),
                RedisStoreOptions.defaults().withPartitions(3, Map.of()));
    }
}
