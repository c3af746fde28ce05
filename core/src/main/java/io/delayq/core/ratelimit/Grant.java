package io.delayq.core.ratelimit;

/**
 * What one {@link RateLimiters#take} got.
 *
 * @param granted      permits taken, 0 to the number asked for
 * @param retryAfterMs when fewer were granted than asked for: how long until the next permit, by the store's clock;
 *                     otherwise 0
 */
public record Grant(int granted, long retryAfterMs) {
}
