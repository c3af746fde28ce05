package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.TenantRegistryContract;
import io.delayq.redis.testing.TestRedis;

/** The tenant registry's contract against a real Redis server (the JVM's shared one, or {@code REDIS_URL}). */
class RedisTenantRegistryContractTest extends TenantRegistryContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
