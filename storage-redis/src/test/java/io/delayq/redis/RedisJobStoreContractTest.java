package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;

/** The store contract against a real Redis server (the JVM's shared embedded one, or {@code REDIS_URL}). */
class RedisJobStoreContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(EmbeddedRedis.sharedTestUri());
    }
}
