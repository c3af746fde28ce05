package io.delayq.service.consumer;

/** Answer of an extend: the lease's new deadline (RFC 3339, the store's clock). */
public record ExtendResponse(String leaseDeadline) {
}
