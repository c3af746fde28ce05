package io.delayq.service.breaker;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.breaker.OriginCircuit;

/**
 * {@code delayq.breaker.open-circuits} and {@code delayq.breaker.held-jobs}: every origin's circuit as the store keeps
 * it for all instances, from the {@link CircuitSnapshot} (a store read at most every 2 s however often scraped).
 */
final class CircuitGauges {
    private CircuitGauges() {
    }

    static void register(MetricRegistry registry, CircuitSnapshot snapshot) {
        registry.gauge(BreakerMetrics.PREFIX + "open-circuits", () -> (Gauge<Long>) () ->
                snapshot.circuits().stream().filter(OriginCircuit::isOpen).count());
        registry.gauge(BreakerMetrics.PREFIX + "held-jobs", () -> (Gauge<Long>) () ->
                snapshot.circuits().stream().mapToLong(OriginCircuit::heldJobs).sum());
    }
}
