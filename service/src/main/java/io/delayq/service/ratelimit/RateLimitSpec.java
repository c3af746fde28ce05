package io.delayq.service.ratelimit;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.ratelimit.Rate;

/**
 * A rate limit as written in a topic's settings ({@code rateLimit}) and in the configuration
 * ({@code delivery.originRateLimits}): at most {@code perSecond} deliveries a second over all instances, with up to
 * {@code burst} at once after a quiet spell. {@link RateLimitChecks#check} turns it into a {@link Rate}.
 *
 * @param perSecond permits per second, more than 0 (fractions allowed: {@code 0.5} is one every two seconds)
 * @param burst     most permits at once, 1 or more; left out: a tenth of a second's worth, at least 1
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RateLimitSpec(Double perSecond, Integer burst) {
    /** The view of a stored rate. */
    public static RateLimitSpec of(Rate rate) {
        return rate == null ? null : new RateLimitSpec(rate.perSecond(), rate.burst());
    }
}
