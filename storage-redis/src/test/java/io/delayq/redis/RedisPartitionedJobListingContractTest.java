package io.delayq.redis;

import io.delayq.core.JobListingContract;
import io.delayq.core.JobStore;
import io.delayq.redis.testing.TestRedis;

import java.util.Map;

/**
 * The job listing's contract with every topic split over three partitions: each page merges three walks, which is
 * where a page could repeat or skip a job if the merge kept a job past another partition's stop.
 */
class RedisPartitionedJobListingContractTest extends JobListingContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri(), RedisStoreOptions.defaults().withPartitions(3, Map.of()));
    }
}
