package io.delayq.core;

/**
 * The outcome of a failed attempt, as the caller of {@link JobStore#nack} decided it.
 *
 * @param retryDelayMs wait this long before the next attempt, or {@code -1} for "dead now"
 * @param error        why it failed, for the job's history
 * @param httpStatus   the callback's answer, when there was one
 */
public record Failure(long retryDelayMs, String error, Integer httpStatus) {
    public static Failure retryAfter(long delayMs, String error, Integer httpStatus) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delay must not be negative");
        }
        return new Failure(delayMs, error, httpStatus);
    }

    public static Failure dead(String error, Integer httpStatus) {
        return new Failure(-1L, error, httpStatus);
    }

    public boolean isDead() {
        return retryDelayMs < 0;
    }
}
