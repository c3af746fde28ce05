package io.delayq.service.prometheus;

import io.delayq.core.breaker.OriginCircuit;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * {@code delayq_breaker_origin_open{origin}} (1 while the origin's circuit is open) and
 * {@code delayq_breaker_origin_held_jobs{origin}}, for the origins that are open or have jobs held, read at scrape time
 * from the breaker's cached snapshot of every circuit (no store call per scrape). Bounded cardinality: the first
 * {@value #ORIGIN_LIMIT} origins this instance reports get a label of their own, later ones are summed into
 * {@code origin="other"} ({@link TopicLabels}, the topics' rule). A closed origin without held jobs has no sample.
 */
final class CircuitSeries {
    static final int ORIGIN_LIMIT = 20;

    private CircuitSeries() {
    }

    static void register(PrometheusRegistry registry, Supplier<List<OriginCircuit>> circuits) {
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
        for (OriginCircuit c : circuits) {
            if (c.isOpen() || c.heldJobs() > 0) {
                out.merge(labels.of(c.origin()), open ? (c.isOpen() ? 1.0 : 0.0) : (double) c.heldJobs(),
                        Double::sum);
            }
        }
        return out;
    }
}
