package io.delayq.redis;

import io.delayq.core.JobListingContract;
import io.delayq.core.JobStore;
import io.delayq.redis.testing.TestRedis;

/** The job listing's contract against a real Redis server (the JVM's shared one, or {@code REDIS_URL}). */
class RedisJobListingContractTest extends JobListingContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
