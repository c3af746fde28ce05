package io.delayq.redis;

import io.delayq.core.ratelimit.Grant;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.redis.Scripts.Op;

import java.util.List;

/**
 * Core's {@link RateLimiters} on Redis: one STRING per bucket, {@link RedisKeys#bucket} ({@code dq:{rl:<key>}}), each
 * under a hash tag of its own so that buckets spread over a cluster's masters; each take is one {@code rate_take.lua}
 * call (one round trip), by Redis's clock. A bucket key expires when the bucket would be full again, so the number of
 * keys is that of the buckets in use, and nothing ever lists them. Takes do not wait for replicas
 * ({@code minReplicas}): a bucket lost in a failover is a full one, a burst granted once more.
 */
final class RedisRateLimiters implements RateLimiters {
    private final RedisCalls calls;

    RedisRateLimiters(RedisCalls calls) {
        this.calls = calls;
    }

    @Override
    public Grant take(String key, Rate rate, int wanted) {
        RateLimiters.checkTake(key, rate, wanted);
        List<String> keys = List.of(RedisKeys.bucket(key));
        List<String> args = List.of(Double.toString(rate.perSecond()), Integer.toString(rate.burst()),
                Integer.toString(wanted));
        List<?> answer = (List<?>) calls.call("take from a rate limit's bucket",
                () -> calls.scripts().eval(Op.RATE_TAKE, keys, args));
        return new Grant(((Long) answer.get(0)).intValue(), (Long) answer.get(1));
    }
}
