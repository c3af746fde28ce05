package io.delayq.service.jobs;

/**
 * The body of {@code POST /v1/topics/{topic}/jobs/{id}/reschedule}: exactly one of the two.
 *
 * @param delayMs run this many ms from now (the store's clock)
 * @param runAt   run at this RFC 3339 time
 */
public record RescheduleRequest(Long delayMs, String runAt) {
}
