package io.delayq.service.prometheus;

import io.delayq.core.breaker.OriginCircuit;
import io.delayq.service.breaker.CircuitSnapshot;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The circuit breakers of every callback origin, as the store keeps them for all instances, read at scrape time from
 * the breaker's cached snapshot (no store call per scrape; one per 2 s at most):
 * <ul>
 *   <li>{@code delayq_breaker_open_circuits} and {@code delayq_breaker_held_jobs}: circuits open now and jobs held
 *   now, over every origin (the same on every instance: aggregate with {@code max}, not {@code sum});</li>
 *   <li>{@code delayq_breaker_origin_open{origin}} (1 while the origin's circuit is open) and
 *   {@code delayq_breaker_origin_held_jobs{origin}}, for the origins that are open or have jobs held. Bounded
 *   cardinality: the first {@value #ORIGIN_LIMIT} origins this instance reports get a label of their own, later ones
 *   are summed into {@code origin="other"} ({@link TopicLabels}, the topics' rule). A closed origin without held jobs
 *   has no sample.</li>
 * </ul>
 * All four have no sample while the circuits cannot be read (the store is down, or keeps no circuits): a snapshot
 * kept from before the outage would be reported as now.
 */
final class CircuitSeries {
    static final int ORIGIN_LIMIT = 20;

    private CircuitSeries() {
    }

    static void register(PrometheusRegistry registry, Supplier<CircuitSnapshot.Reading> readings) {
        Supplier<List<OriginCircuit>> circuits = () -> {
            CircuitSnapshot.Reading reading = readings.get();
            return reading.error() == null ? reading.circuits() : null;
        };
        GaugeWithCallback.builder()
                .name("delayq_breaker_open_circuits")
                .help("Callback origins whose circuit breaker is open now, over every instance (the same on each)")
                .callback(callback -> {
                    List<OriginCircuit> now = circuits.get();
                    if (now != null) {
                        callback.call(now.stream().filter(OriginCircuit::isOpen).count());
                    }
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("delayq_breaker_held_jobs")
                .help("Jobs held now by circuit breakers, over every origin and instance (the same on each); the"
                        + " holds this instance made are delayq_breaker_holds_total")
                .callback(callback -> {
                    List<OriginCircuit> now = circuits.get();
                    if (now != null) {
                        callback.call(now.stream().mapToLong(OriginCircuit::heldJobs).sum());
                    }
                })
                .register(registry);
        TopicLabels labels = new TopicLabels(ORIGIN_LIMIT);
        GaugeWithCallback.builder()
                .name("delayq_breaker_origin_open")
                .help("1 while the callback origin's circuit breaker is open (its jobs held), by origin; for"
                        + " origin=\"other\", how many of those origins are open")
                .labelNames("origin")
                .callback(callback -> byLabel(circuits.get(), labels, true)
                        .forEach((origin, value) -> callback.call(value, origin)))
                .register(registry);
        GaugeWithCallback.builder()
                .name("delayq_breaker_origin_held_jobs")
                .help("Jobs held for the callback origin by its circuit breaker, by origin")
                .labelNames("origin")
                .callback(callback -> byLabel(circuits.get(), labels, false)
                        .forEach((origin, value) -> callback.call(value, origin)))
                .register(registry);
    }

    private static Map<String, Double> byLabel(List<OriginCircuit> circuits, TopicLabels labels, boolean open) {
        Map<String, Double> out = new TreeMap<>();
        if (circuits == null) {
            return out;
        }
        for (OriginCircuit c : circuits) {
            if (c.isOpen() || c.heldJobs() > 0) {
                out.merge(labels.of(c.origin()), open ? (c.isOpen() ? 1.0 : 0.0) : (double) c.heldJobs(),
                        Double::sum);
            }
        }
        return out;
    }
}
