package io.delayq.redis;

import io.delayq.core.CircuitBreakersContract;
import io.delayq.core.JobStore;
import io.delayq.redis.testing.TestRedis;

/** The circuits' contract (issue 26) against a real Redis server (the JVM's shared one, or {@code REDIS_URL}). */
class RedisCircuitBreakersContractTest extends CircuitBreakersContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
