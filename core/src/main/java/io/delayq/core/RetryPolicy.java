package io.delayq.core;

import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How often and how far apart a job is attempted: at most {@code maxAttempts} attempts in all, waiting
 * {@link Backoff#delayMillis} after each failure.
 */
public record RetryPolicy(int maxAttempts, Backoff backoff) {
    public static final int DEFAULT_MAX_ATTEMPTS = 10;

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        Objects.requireNonNull(backoff, "backoff");
    }

    public static RetryPolicy defaults() {
        return new RetryPolicy(DEFAULT_MAX_ATTEMPTS, Backoff.defaultBackoff());
    }

    /**
     * What to do after attempt {@code failedAttempt} failed.
     *
     * @return the wait before the next attempt in ms, or {@code -1} when attempts are exhausted and the job is dead
     */
    public long nextDelayMillis(int failedAttempt, RandomGenerator random) {
        if (failedAttempt >= maxAttempts) {
            return -1L;
        }
        return backoff.delayMillis(failedAttempt, random);
    }
}
