package io.delayq.service.consumer;

/**
 * Body of {@code POST /v1/topics/{topic}/jobs/{id}/nack}.
 *
 * @param leaseToken the token of the lease
 * @param delayMs    "not now, put it back": run it again after this many ms; absent = the retry policy decides
 *                   (and the job dies when its attempts are exhausted)
 * @param error      why the attempt failed, kept in the job's history
 * @param noRetry    {@code true}: the job cannot succeed, do not try it again: it is dead now, cause {@code NO_RETRY},
 *                   whatever attempts it has left (not with {@code delayMs})
 */
public record NackRequest(String leaseToken, Long delayMs, String error, Boolean noRetry) {
    /** A nack without {@code noRetry} (the form before it existed). */
    public NackRequest(String leaseToken, Long delayMs, String error) {
        this(leaseToken, delayMs, error, null);
    }

    public boolean endsJob() {
        return Boolean.TRUE.equals(noRetry);
    }
}
