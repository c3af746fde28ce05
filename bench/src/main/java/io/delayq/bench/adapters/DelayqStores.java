package io.delayq.bench.adapters;

import io.delayq.bench.BenchPostgres;
import io.delayq.core.JobStore;
import io.delayq.postgres.PostgresJobStore;
import io.delayq.postgres.PostgresStoreOptions;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.RedisStoreOptions;

/** Opens delayq's store for the benchmark: the Redis store for {@code redis://…}, the PostgreSQL one for {@code jdbc:postgresql://…}. */
public final class DelayqStores {
    /**
     * 8 producers + 8 consumers + the notification subscriber need more than the default 16 connections; Redisson's
     * default pool is 64, the naive adapter's 32. (The PostgreSQL store's pool is its default: up to 32 connections,
     * plus its LISTEN connection.)
     */
    static final int POOL_SIZE = 32;

    private DelayqStores() {
    }

    public static JobStore connect(String uri) {
        if (uri.startsWith("jdbc:postgresql:")) {
            return connectPostgres(uri, PostgresStoreOptions.defaults());
        }
        return RedisJobStore.connect(uri, RedisStoreOptions.defaults().withPoolSize(POOL_SIZE));
    }

    /** The PostgreSQL store on the bench server (user postgres, trust authentication); migrates the database. */
    public static JobStore connectPostgres(String jdbcUrl, PostgresStoreOptions options) {
        return PostgresJobStore.connect(jdbcUrl, BenchPostgres.USER, "", options);
    }
}
