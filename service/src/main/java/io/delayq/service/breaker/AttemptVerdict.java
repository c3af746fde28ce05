package io.delayq.service.breaker;

import java.util.concurrent.TimeoutException;

/**
 * What an attempt says about its callback origin's health. Only what says something about the origin counts toward
 * opening its circuit: a circuit is shared by every job to the origin, whoever scheduled them, so a producer's own
 * choices (a timeout shorter than the origin's real answer time) must not open it for everyone else.
 */
enum AttemptVerdict {
    /** The origin answered (a 1xx–4xx status, except back-pressure): it is up, whatever it thought of the job. */
    ANSWERED,
    /**
     * A refused or reset connection, a 5xx other than back-pressure, or a timeout of an attempt that was allowed at
     * least {@code breaker.minTimeout}: counts toward opening the circuit.
     */
    FAILED,
    /**
     * Nothing about the origin's health: delayq itself refused the address; the attempt timed out within less than
     * {@code breaker.minTimeout} (the job's timeout was shorter than the origin's answer time, which is the job's
     * failure); or back-pressure, a {@code 429} or {@code 503} with a {@code Retry-After} (the origin is up and says
     * when to come back, which delays the job's next attempt).
     */
    SILENT;

    /**
     * @param failure          why no answer came (a cause chain), or {@code null} when there was a status
     * @param status           the answer's status when {@code failure} is null
     * @param retryAfter       whether the answer carried a usable {@code Retry-After}
     * @param attemptTimeoutMs how long the attempt was allowed (the job's, else the topic's, else the default timeout)
     * @param minTimeoutMs     {@code breaker.minTimeout}: shorter attempts' timeouts say nothing about the origin
     */
    static AttemptVerdict of(Throwable failure, int status, boolean retryAfter, long attemptTimeoutMs,
                             long minTimeoutMs) {
        if (failure == null) {
            if (retryAfter && (status == 429 || status == 503)) {
                return SILENT;
            }
            return status >= 500 ? FAILED : ANSWERED;
        }
        for (Throwable e = failure; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof IllegalArgumentException) {
                return SILENT; // the callback guard's refusal, as FailureMessages reads it
            }
            if (e instanceof TimeoutException) {
                return attemptTimeoutMs >= minTimeoutMs ? FAILED : SILENT;
            }
        }
        return FAILED;
    }
}
