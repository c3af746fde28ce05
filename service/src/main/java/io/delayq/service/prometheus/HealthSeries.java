package io.delayq.service.prometheus;

import io.dropwizard.health.HealthStateAggregator;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Optional;

/**
 * {@code delayq_store_up} and {@code delayq_archive_up}: 1 while this instance's scheduled {@code store} (or
 * {@code archive}) health check says healthy, 0 while it says unhealthy, read at scrape time from Dropwizard's health
 * module (the state {@code /health-check} answers by: no store call per scrape, the check's own schedule and
 * thresholds). No sample when the check is not scheduled (the {@code health:} block disabled, or without it).
 */
final class HealthSeries {
    static final String STORE_UP = "delayq_store_up";
    static final String ARCHIVE_UP = "delayq_archive_up";

    private HealthSeries() {
    }

    /** @param health the health module's checks, empty when it is disabled */
    static void register(PrometheusRegistry registry, Optional<HealthStateAggregator> health) {
        gauge(registry, STORE_UP, "store", "1 while this instance reaches the job store (its scheduled store health"
                + " check), else 0", health);
        gauge(registry, ARCHIVE_UP, "archive", "1 while this instance reaches the archive (its scheduled archive"
                + " health check), else 0", health);
    }

    private static void gauge(PrometheusRegistry registry, String name, String check, String help,
                              Optional<HealthStateAggregator> health) {
        GaugeWithCallback.builder()
                .name(name)
                .help(help)
                .callback(callback -> health.flatMap(h -> h.healthStateView(check))
                        .ifPresent(view -> callback.call(view.isHealthy() ? 1 : 0)))
                .register(registry);
    }
}
