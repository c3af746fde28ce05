package io.delayq.bench.adapters;

import io.delayq.core.JobStore;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.RedisStoreOptions;

/** Opens delayq's Redis store for the benchmark. */
public final class DelayqStores {
    /**
     * 8 producers + 8 consumers + the notification subscriber need more than the default 16 connections; Redisson's
     * default pool is 64, the naive adapter's 32.
     */
    static final int POOL_SIZE = 32;

    private DelayqStores() {
    }

    public static JobStore connect(String uri) {
        return RedisJobStore.connect(uri, RedisStoreOptions.defaults().withPoolSize(POOL_SIZE));
    }
}
