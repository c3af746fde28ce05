package io.delayq.bench;

/**
 * The bench Redis as a {@link Backend}: FLUSHALL + CONFIG RESETSTAT before each run, {@code used_memory} for the
 * bytes, INFO deltas (CPU, commandstats) for the cost — the same calls, in the same order, as before PostgreSQL came.
 */
public final class RedisBackend implements Backend {
    private final BenchRedis redis;

    public RedisBackend(BenchRedis redis) {
        this.redis = redis;
    }

    @Override
    public String tablePrefix() {
        return "";
    }

    @Override
    public String fresh(String owner) {
        redis.reset();
        return redis.uri();
    }

    @Override
    public long storedBytes() {
        return redis.usedMemory();
    }

    @Override
    public Mark mark() {
        redis.resetStats();
        RedisInfo before = redis.info();
        return () -> redis.info().costSince(before);
    }

    @Override
    public void clear() {
        redis.flushAll();
    }
}
