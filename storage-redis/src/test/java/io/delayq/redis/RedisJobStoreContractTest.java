package io.delayq.redis;

import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;
import io.delayq.redis.testing.TestRedis;

import java.time.Duration;

/** The store contract against a real Redis server (the JVM's shared embedded one, or {@code REDIS_URL}). */
class RedisJobStoreContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }

    @Override
    protected JobStore newStoreWithRetention(long retentionMs) {
        return RedisJobStore.connect(TestRedis.sharedUri(), RedisStoreOptions.defaults().withFinishedRetention(Duration.ofMillis(retentionMs))
                .withTrimInterval(Duration.ofMillis(100)));
    }

    @Override
    protected JobStore newUnreachableStore() {
        return RedisJobStore.connect("redis://127.0.0.1:1");
    }

    @Override
    protected void makeUnreadable(JobStore store, JobRef ref) {
        RedisFixtures.makeUnreadable((RedisJobStore) store, ref);
    }
}
