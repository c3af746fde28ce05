package io.delayq.service.consumer;

/**
 * Body of {@code POST /v1/topics/{topic}/jobs/{id}/nack}.
 *
 * @param leaseToken the token of the lease
 * @param delayMs    "not now, put it back": run it again after this many ms; absent = the retry policy decides
 *                   (and the job dies when its attempts are exhausted)
 * @param error      why the attempt failed, kept in the job's history
 */
public record NackRequest(String leaseToken, Long delayMs, String error) {
}
