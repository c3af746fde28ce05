package io.delayq.service.prometheus;

import io.delayq.service.delivery.DeliveryEngine.TenantShare;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * How this instance shares delivery between tenants, read from the engine at scrape time, label {@code tenant} (the
 * operators' topics as {@value #OPERATORS}, which no tenant can be named: a tenant's name has no parentheses):
 * gauges {@code delayq_delivery_tenant_slots} (callbacks in flight and slots granted to a reserve),
 * {@code delayq_delivery_tenant_waiting_topics} (topics waiting for a turn), {@code delayq_delivery_tenant_weight};
 * counters {@code delayq_delivery_tenant_turns_total} (reserves) and {@code delayq_delivery_tenant_reserved_total}
 * (jobs reserved). Tenants are made by people, so the label needs no bound.
 */
final class TenantShareSeries {
    static final String OPERATORS = "(operators)";

    private TenantShareSeries() {
    }

    static void register(PrometheusRegistry registry, Supplier<List<TenantShare>> shares) {
        gauge(registry, "delayq_delivery_tenant_slots", "Delivery slots a tenant's topics hold on this instance:"
                + " callbacks in flight and slots granted to a reserve", shares, TenantShare::slots);
        gauge(registry, "delayq_delivery_tenant_waiting_topics", "A tenant's topics waiting for a turn to reserve"
                + " on this instance", shares, TenantShare::waitingTopics);
        gauge(registry, "delayq_delivery_tenant_weight", "A tenant's weight: its share of delivery against other"
                + " tenants with work due", shares, TenantShare::weight);
        counter(registry, "delayq_delivery_tenant_turns", "Reserves of a tenant's topics on this instance", shares,
                TenantShare::turns);
        counter(registry, "delayq_delivery_tenant_reserved", "Jobs of a tenant's topics reserved for delivery on this"
                + " instance", shares, TenantShare::reserved);
    }

    private static void gauge(PrometheusRegistry registry, String name, String help,
                              Supplier<List<TenantShare>> shares, ToDoubleFunction<TenantShare> value) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("tenant")
                .callback(callback -> shares.get().forEach(s -> callback.call(value.applyAsDouble(s), label(s))))
                .register(registry);
    }

    private static void counter(PrometheusRegistry registry, String name, String help,
                                Supplier<List<TenantShare>> shares, ToDoubleFunction<TenantShare> value) {
        CounterWithCallback.builder().name(name).help(help).labelNames("tenant")
                .callback(callback -> shares.get().forEach(s -> callback.call(value.applyAsDouble(s), label(s))))
                .register(registry);
    }

    private static String label(TenantShare s) {
        return s.tenant() == null ? OPERATORS : s.tenant();
    }
}
