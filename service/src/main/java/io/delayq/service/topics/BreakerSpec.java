package io.delayq.service.topics;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.dropwizard.util.Duration;

/**
 * A topic's endpoint circuit breaker, in {@code PUT /v1/topics/{topic}} and its view. The object replaces the topic's
 * breaker settings whole; a field left out (or the whole object {@code null}) means the service default
 * ({@code delivery.breaker} in config.yml).
 *
 * @param enabled          whether the topic's callbacks go through the breaker
 * @param failureThreshold consecutive failed attempts (connection failure, timeout, 5xx) to one origin that open its
 *                         circuit
 * @param probeInterval    wait before the first probe of an open circuit, e.g. {@code "5s"}; doubles per failed probe
 * @param maxProbeInterval cap of that wait, e.g. {@code "5m"}
 * @param releasePerSecond jobs per second (per service instance) sent to an origin whose circuit just closed, while
 *                         its held jobs drain
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BreakerSpec(Boolean enabled, Integer failureThreshold, Duration probeInterval, Duration maxProbeInterval,
                          Integer releasePerSecond) {
}
