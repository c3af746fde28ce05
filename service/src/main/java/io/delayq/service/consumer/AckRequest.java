package io.delayq.service.consumer;

/** Body of {@code POST /v1/topics/{topic}/jobs/{id}/ack}. */
public record AckRequest(String leaseToken) {
}
