package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.RateLimitersContract;
import io.delayq.redis.testing.TestRedis;

/** The token buckets' contract against a real Redis server (the JVM's shared one, or {@code REDIS_URL}). */
class RedisRateLimitersContractTest extends RateLimitersContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
