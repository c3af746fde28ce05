package io.delayq.service.consumer;

/**
 * Body of {@code POST /v1/topics/{topic}/jobs/{id}/extend}.
 *
 * @param leaseToken the token of the lease
 * @param leaseMs    the new lease length, counted from now
 */
public record ExtendRequest(String leaseToken, Long leaseMs) {
}
