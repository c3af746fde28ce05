package io.delayq.service.topics;

import io.delayq.core.breaker.BreakerSettings;
import io.dropwizard.util.Duration;

/** The rules a topic's circuit-breaker settings must pass before they are stored. */
public final class BreakerChecks {
    private static final long MIN_PROBE_MS = 100;
    private static final long MAX_PROBE_MS = 86_400_000;
    private static final int MAX_THRESHOLD = 10_000;
    private static final int MAX_RELEASE_PER_SECOND = 100_000;

    private BreakerChecks() {
    }

    /** The settings to store; {@code null} stays {@code null} (the service default). */
    public static BreakerSettings check(BreakerSpec spec) {
        if (spec == null) {
            return null;
        }
        Integer threshold = spec.failureThreshold();
        if (threshold != null && (threshold < 1 || threshold > MAX_THRESHOLD)) {
            throw new IllegalArgumentException("breaker.failureThreshold is " + threshold + "; it must be between 1 and "
                    + MAX_THRESHOLD + " consecutive failures");
        }
        Long probe = probeMs("breaker.probeInterval", spec.probeInterval());
        Long maxProbe = probeMs("breaker.maxProbeInterval", spec.maxProbeInterval());
        if (probe != null && maxProbe != null && maxProbe < probe) {
            throw new IllegalArgumentException("breaker.maxProbeInterval (" + spec.maxProbeInterval()
                    + ") must not be shorter than breaker.probeInterval (" + spec.probeInterval() + ")");
        }
        Integer release = spec.releasePerSecond();
        if (release != null && (release < 1 || release > MAX_RELEASE_PER_SECOND)) {
            throw new IllegalArgumentException("breaker.releasePerSecond is " + release + "; it must be between 1 and "
                    + MAX_RELEASE_PER_SECOND);
        }
        return new BreakerSettings(spec.enabled(), threshold, probe, maxProbe, release);
    }

    private static Long probeMs(String field, Duration d) {
        if (d == null) {
            return null;
        }
        long ms = d.toMilliseconds();
        if (ms < MIN_PROBE_MS || ms > MAX_PROBE_MS) {
            throw new IllegalArgumentException(field + " is " + d + "; it must be between 100ms and 24h");
        }
        return ms;
    }
}
