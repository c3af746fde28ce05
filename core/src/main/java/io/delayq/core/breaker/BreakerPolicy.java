package io.delayq.core.breaker;

/**
 * A resolved circuit-breaker policy: every field set (the service's defaults under a topic's
 * {@link BreakerSettings}).
 *
 * @param enabled            whether the breaker applies
 * @param failureThreshold   consecutive failed attempts that open an origin's circuit, at least 1
 * @param probeIntervalMs    first wait before probing an open circuit, at least 1
 * @param maxProbeIntervalMs cap of the doubling wait between probes, at least {@code probeIntervalMs}
 * @param releasePerSecond   jobs per second per instance to a just-closed origin while its held backlog drains, at
 *                           least 1
 */
public record BreakerPolicy(boolean enabled, int failureThreshold, long probeIntervalMs, long maxProbeIntervalMs,
                            int releasePerSecond) {

    public BreakerPolicy {
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("breaker failureThreshold must be at least 1, got " + failureThreshold);
        }
        if (probeIntervalMs < 1) {
            throw new IllegalArgumentException("breaker probeInterval must be at least 1 ms, got " + probeIntervalMs);
        }
        if (maxProbeIntervalMs < probeIntervalMs) {
            throw new IllegalArgumentException("breaker maxProbeInterval (" + maxProbeIntervalMs
                    + " ms) must not be shorter than probeInterval (" + probeIntervalMs + " ms)");
        }
        if (releasePerSecond < 1) {
            throw new IllegalArgumentException("breaker releasePerSecond must be at least 1, got " + releasePerSecond);
        }
    }

    /** These defaults under a topic's settings ({@code null}: none). */
    public BreakerPolicy over(BreakerSettings topic) {
        if (topic == null) {
            return this;
        }
        return new BreakerPolicy(
                topic.enabled() != null ? topic.enabled() : enabled,
                topic.failureThreshold() != null ? topic.failureThreshold() : failureThreshold,
                topic.probeIntervalMs() != null ? topic.probeIntervalMs() : probeIntervalMs,
                topic.maxProbeIntervalMs() != null ? topic.maxProbeIntervalMs() : maxProbeIntervalMs,
                topic.releasePerSecond() != null ? topic.releasePerSecond() : releasePerSecond);
    }
}
