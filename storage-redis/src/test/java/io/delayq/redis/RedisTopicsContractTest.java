package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.TopicsContract;
import io.delayq.redis.testing.TestRedis;

/** The topic list's contract (issue 26) against a real Redis server (the JVM's shared one, or {@code REDIS_URL}). */
class RedisTopicsContractTest extends TopicsContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
