package io.delayq.postgres;

import io.delayq.core.ratelimit.Grant;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;
import org.jdbi.v3.core.Jdbi;

/**
 * Core's {@link RateLimiters} on PostgreSQL: one row of {@code delayq_rate_buckets} (V15, UNLOGGED) per bucket in use,
 * each take one statement ({@code rate_take.sql}: {@code INSERT … ON CONFLICT DO UPDATE … RETURNING}) by the
 * database's clock, one round trip. Buckets full again are dropped by the store's {@link Reaper} in bounded batches,
 * by an index on when they are full ({@link #trim}); nothing ever reads every bucket.
 */
final class PostgresRateLimiters implements RateLimiters {
    private final BucketStatements statements;

    /** On the store's {@link Jdbi}, whose pool it shares. */
    PostgresRateLimiters(Jdbi jdbi) {
        jdbi.registerRowMapper(Grant.class, (rs, ctx) -> new Grant(rs.getInt("granted"), rs.getLong("retry_after_ms")));
        this.statements = jdbi.onDemand(BucketStatements.class);
    }

    @Override
    public Grant take(String key, Rate rate, int wanted) {
        RateLimiters.checkTake(key, rate, wanted);
        return PostgresCalls.call("take from a rate limit's bucket",
                () -> statements.take(key, rate.perSecond(), rate.burst(), wanted));
    }

    /** Drops up to {@code batch} buckets that are full again; how many. */
    int trim(int batch) {
        return statements.trim(batch);
    }
}
