package io.delayq.core.breaker;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A topic's circuit-breaker settings, as stored in its {@link io.delayq.core.TopicSettings}. Every field may be
 * {@code null}, meaning "the service default"; {@link BreakerPolicy#over} resolves them.
 *
 * @param enabled            whether the topic's callbacks go through the breaker at all
 * @param failureThreshold   consecutive failed attempts (connection failures, timeouts, 5xx) to an origin that open
 *                           its circuit
 * @param probeIntervalMs    the wait before the first probe of an open circuit; it doubles after each failed probe
 * @param maxProbeIntervalMs the cap of that wait
 * @param releasePerSecond   after the circuit closes, how many jobs per second (per service instance) go to the origin
 *                           while the held backlog drains
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BreakerSettings(Boolean enabled, Integer failureThreshold, Long probeIntervalMs, Long maxProbeIntervalMs,
                              Integer releasePerSecond) {

    public static BreakerSettings empty() {
        return new BreakerSettings(null, null, null, null, null);
    }
}
