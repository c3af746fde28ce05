package io.delayq.service.topics;

import io.dropwizard.util.Duration;

import java.util.List;
import java.util.TreeSet;

/**
 * The checks of a topic's expiry and "don't retry" settings (issue 29): {@code expiresAfter}, a duration after each
 * job's run time, and {@code noRetryStatuses}, the callback answers that end a job at once. An error names the field.
 */
final class RetryAnswerChecks {
    static final long MIN_EXPIRES_AFTER_MS = 1_000;
    /** A year: an expiry further away than any run time a producer may set is no expiry. */
    static final long MAX_EXPIRES_AFTER_MS = 366L * 86_400_000;
    static final int MAX_NO_RETRY_STATUSES = 100;

    private RetryAnswerChecks() {
    }

    /** {@code expiresAfter} in ms, 1 s to 366 days; {@code null} stays {@code null} (no topic default). */
    static Long expiresAfter(Duration after) {
        if (after == null) {
            return null;
        }
        long ms = after.toMilliseconds();
        if (ms < MIN_EXPIRES_AFTER_MS || ms > MAX_EXPIRES_AFTER_MS) {
            throw new IllegalArgumentException("expiresAfter is " + after + "; it must be between 1s and 366d");
        }
        return ms;
    }

    /**
     * {@code noRetryStatuses}: HTTP statuses 400 to 599, at most {@value #MAX_NO_RETRY_STATUSES}, stored sorted and
     * once each; {@code null} stays {@code null} (none). 2xx is a success and 429 with {@code Retry-After} a postponement
     * whatever this says; a 429 listed here ends a job that answers it without one.
     */
    static List<Integer> noRetryStatuses(List<Integer> statuses) {
        if (statuses == null) {
            return null;
        }
        if (statuses.size() > MAX_NO_RETRY_STATUSES) {
            throw new IllegalArgumentException("noRetryStatuses has " + statuses.size() + " entries; at most "
                    + MAX_NO_RETRY_STATUSES);
        }
        TreeSet<Integer> sorted = new TreeSet<>();
        for (Integer status : statuses) {
            if (status == null || status < 400 || status > 599) {
                throw new IllegalArgumentException("noRetryStatuses contains " + status
                        + "; each must be an HTTP error status, 400 to 599");
            }
            sorted.add(status);
        }
        return List.copyOf(sorted);
    }
}
