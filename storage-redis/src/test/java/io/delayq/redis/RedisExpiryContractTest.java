package io.delayq.redis;

import io.delayq.core.ExpiryContract;
import io.delayq.core.JobStore;
import io.delayq.redis.testing.TestRedis;

/** Expiry and dead causes against a real Redis server (the JVM's shared one, or {@code REDIS_URL}). */
class RedisExpiryContractTest extends ExpiryContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
