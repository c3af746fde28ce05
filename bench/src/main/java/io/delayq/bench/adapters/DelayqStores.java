package io.delayq.bench.adapters;

import io.delayq.core.JobStore;

/** Opens delayq's Redis store for the benchmark. */
public final class DelayqStores {
    private DelayqStores() {
    }

    /** {@code RedisJobStore.connect(uri)}, looked up reflectively while storage-redis is being written. */
    public static JobStore connect(String uri) throws Exception {
        Class<?> c;
        try {
            c = Class.forName("io.delayq.redis.RedisJobStore");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("io.delayq.redis.RedisJobStore is not on the classpath yet (storage-redis)", e);
        }
        return (JobStore) c.getMethod("connect", String.class).invoke(null, uri);
    }
}
