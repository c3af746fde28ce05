package io.delayq.service.prometheus;

import io.delayq.service.tenants.QuotaRefusals;
import io.delayq.service.tenants.TenantQuotaReadings;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Each tenant's quota use beside its limits, label {@code tenant}: gauges {@code delayq_tenant_pending_jobs} (scheduled
 * and leased jobs with the tenant's schedules, what {@code maxPendingJobs} is checked against),
 * {@code delayq_tenant_pending_jobs_limit}, {@code delayq_tenant_topics}, {@code delayq_tenant_topics_limit}; and the
 * counter {@code delayq_tenant_quota_exceeded_total{tenant, quota}} of the refusals this instance answered.
 *
 * <p>The gauges are store-wide, the same on every instance: read by {@link TenantQuotaReadings} on a timer (not per
 * scrape) and aggregated with {@code max}, never {@code sum}. None has a sample while the store cannot be read, and a
 * limit gauge none for a tenant without that quota. Tenants are made by people, so the label needs no bound; the
 * counter's {@code quota} is one of five names.
 */
final class TenantQuotaSeries {
    private TenantQuotaSeries() {
    }

    static void register(PrometheusRegistry registry, Supplier<List<TenantQuotaReadings.Reading>> readings,
                         Supplier<List<QuotaRefusals.Count>> refusals) {
        gauge(registry, "delayq_tenant_pending_jobs", "A tenant's pending jobs (scheduled and leased, with its"
                + " schedules counted as jobs) over the whole store, the same on every instance: aggregate with max",
                readings, r -> (double) r.pendingJobs());
        gauge(registry, "delayq_tenant_pending_jobs_limit", "A tenant's quota maxPendingJobs (no sample without one)",
                readings, r -> r.maxPendingJobs() == null ? null : r.maxPendingJobs().doubleValue());
        gauge(registry, "delayq_tenant_topics", "A tenant's topics that hold or held jobs, or hold schedules, over the"
                + " whole store, the same on every instance: aggregate with max", readings, r -> (double) r.topics());
        gauge(registry, "delayq_tenant_topics_limit", "A tenant's quota maxTopics (no sample without one)", readings,
                r -> r.maxTopics() == null ? null : r.maxTopics().doubleValue());
        CounterWithCallback.builder().name("delayq_tenant_quota_exceeded")
                .help("Requests (or a batch's items) this instance refused by a tenant's quota, by quota")
                .labelNames("tenant", "quota")
                .callback(callback -> refusals.get().forEach(c -> callback.call(c.refusals(), c.tenant(), c.quota())))
                .register(registry);
    }

    private static void gauge(PrometheusRegistry registry, String name, String help,
                              Supplier<List<TenantQuotaReadings.Reading>> readings,
                              Function<TenantQuotaReadings.Reading, Double> value) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("tenant")
                .callback(callback -> {
                    List<TenantQuotaReadings.Reading> now = readings.get();
                    if (now == null) {
                        return; // unknown: no sample, not a number from before an outage
                    }
                    for (TenantQuotaReadings.Reading r : now) {
                        Double v = value.apply(r);
                        if (v != null) {
                            callback.call(v, r.tenant());
                        }
                    }
                })
                .register(registry);
    }
}
