package io.delayq.service.breaker;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;

/**
 * What this instance's breaker does, {@code delayq.breaker.*} meters: {@code jobs-held} (jobs postponed by an open
 * circuit or by the paced release), {@code probes} (probe attempts this instance made), {@code opened} and
 * {@code closed} (circuits this instance's attempts opened or closed), {@code untracked-origins} (failures of new
 * origins not tracked: {@code maxOrigins} origins have a circuit). The gauges of every origin's state are
 * {@link CircuitGauges}.
 */
final class BreakerMetrics {
    static final String PREFIX = "delayq.breaker.";

    final Meter jobsHeld;
    final Meter probes;
    final Meter opened;
    final Meter closed;
    /** Failures of origins not tracked because {@code maxOrigins} origins have a circuit (issue 26, finding 5). */
    final Meter untracked;

    BreakerMetrics(MetricRegistry registry) {
        this.jobsHeld = registry.meter(PREFIX + "jobs-held");
        this.probes = registry.meter(PREFIX + "probes");
        this.opened = registry.meter(PREFIX + "opened");
        this.closed = registry.meter(PREFIX + "closed");
        this.untracked = registry.meter(PREFIX + "untracked-origins");
    }
}
