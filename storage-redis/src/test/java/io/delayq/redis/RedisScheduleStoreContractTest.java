package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.ScheduleStoreContract;
import io.delayq.redis.testing.TestRedis;

/** The recurring schedules' contract against a real Redis server (the JVM's shared one, or {@code REDIS_URL}). */
class RedisScheduleStoreContractTest extends ScheduleStoreContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
