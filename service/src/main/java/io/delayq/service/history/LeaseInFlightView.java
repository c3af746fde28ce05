package io.delayq.service.history;

/** A lease in flight on the wire ({@code deadline} RFC 3339). */
public record LeaseInFlightView(String id, String lane, int attempt, String deadline) {
}
