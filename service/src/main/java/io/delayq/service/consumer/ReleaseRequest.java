package io.delayq.service.consumer;

/** Body of {@code POST /v1/topics/{topic}/jobs/{id}/release}: the token of the lease to give back. */
public record ReleaseRequest(String leaseToken) {
}
