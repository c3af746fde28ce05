package io.delayq.core;

/**
 * The outcome of a failed attempt, as the caller of {@link JobStore#nack} decided it.
 *
 * @param retryDelayMs wait this long before the next attempt, or {@code -1} for "dead now"
 * @param error        why it failed, for the job's history
 * @param httpStatus   the callback's answer, when there was one
 * @param held         the attempt was never made: the job was <em>held</em> (an open circuit breaker postponed it).
 *                     Its attempt number is given back, as a reschedule gives it back, so holding never uses up an
 *                     attempt nor makes a job dead; the history entry is marked {@link Attempt#held()}
 * @param cause        when the job dies of this failure: why ({@code null}: {@link DeadCause#ATTEMPTS_EXHAUSTED}, the
 *                     store's answer for a job that used its attempts)
 */
public record Failure(long retryDelayMs, String error, Integer httpStatus, boolean held, DeadCause cause) {

    public Failure {
        if (held && retryDelayMs < 0) {
            throw new IllegalArgumentException("a held job is postponed, never dead");
        }
    }

    public Failure(long retryDelayMs, String error, Integer httpStatus, boolean held) {
        this(retryDelayMs, error, httpStatus, held, null);
    }

    public Failure(long retryDelayMs, String error, Integer httpStatus) {
        this(retryDelayMs, error, httpStatus, false);
    }

    /** Dead now, for the given cause. */
    public static Failure dead(String error, Integer httpStatus, DeadCause cause) {
        return new Failure(-1L, error, httpStatus, false, cause);
    }

    /**
     * The receiver said when to come back (a {@code 429}/{@code 503} with {@code Retry-After}): the job is postponed by
     * {@code delayMs} without using up its attempt, as a hold is, and the answer's status is kept in its history.
     */
    public static Failure postponed(long delayMs, String error, Integer httpStatus) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delay must not be negative");
        }
        return new Failure(delayMs, error, httpStatus, true, null);
    }

    /** The cause the store records when this failure kills the job. */
    public DeadCause deadCause() {
        return cause != null ? cause : DeadCause.ATTEMPTS_EXHAUSTED;
    }

    public static Failure retryAfter(long delayMs, String error, Integer httpStatus) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delay must not be negative");
        }
        return new Failure(delayMs, error, httpStatus, false);
    }

    public static Failure dead(String error, Integer httpStatus) {
        return new Failure(-1L, error, httpStatus, false);
    }

    /** The job is postponed by {@code delayMs} without using up the attempt it was leased for. */
    public static Failure held(long delayMs, String reason) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delay must not be negative");
        }
        return new Failure(delayMs, reason, null, true);
    }

    public boolean isDead() {
        return retryDelayMs < 0;
    }
}
