package io.delayq.postgres;

import io.delayq.core.ratelimit.Grant;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * The token buckets' statements ({@code delayq_rate_buckets}, V15), in {@code io/delayq/postgres/sql/}
 * ({@link StatementFiles}): a take ({@code rate_take.sql}, the twin of storage-redis's {@code rate_take.lua}) and the
 * reaper's pass over idle buckets.
 */
interface BucketStatements {

    @SqlQuery("rate_take")
    Grant take(@Bind("key") String key, @Bind("perSecond") double perSecond, @Bind("burst") int burst,
               @Bind("wanted") int wanted);

    /** Buckets full again, dropped; how many. */
    @SqlQuery("trim_rate_buckets")
    int trim(@Bind("batch") int batch);
}
