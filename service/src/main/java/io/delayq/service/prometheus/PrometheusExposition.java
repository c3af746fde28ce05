package io.delayq.service.prometheus;

import io.delayq.service.breaker.CircuitSnapshot;
import io.delayq.service.delivery.DeliveryEngine;
import io.delayq.service.history.TopicActivity;
import io.delayq.service.tenants.QuotaRefusals;
import io.delayq.service.tenants.TenantQuotaReadings;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.health.HealthStateAggregator;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@value #PATH} on the admin port: the service's metrics for Prometheus, in the text format 0.0.4 or OpenMetrics
 * (by the request's {@code Accept}), written by the official client's servlet. See package-info for the series.
 *
 * <pre>{@code TopicActivity prometheus = PrometheusExposition.register(environment, factory, circuits::read, health, shares);}</pre>
 *
 * Call it before the delivery engine is built (it takes over the engine's callback-latency timer), and pass the
 * returned activity to the engine and the scheduler (with the history, through {@link CompositeTopicActivity}).
 */
public final class PrometheusExposition {
    public static final String PATH = "/metrics/prometheus";

    private PrometheusExposition() {
    }

    /**
     * @param circuits the callback origins' circuits, read at scrape time (a cached snapshot: see
     *                 {@link CircuitSeries})
     * @param health   the health module's scheduled checks ({@code delayq_store_up}, {@code delayq_archive_up}), empty
     *                 when the {@code health:} block is disabled
     * @param shares   the delivery engine's shares per tenant ({@link TenantShareSeries}), read at scrape time (the
     *                 engine is built after this: an empty list until it is)
     * @param quotaUse each tenant's quota use and limits, read on a timer ({@link TenantQuotaSeries}); {@code null}
     *                 while unknown
     * @param refusals the quota refusals this instance answered
     */
    public static TopicActivity register(Environment environment, PrometheusFactory factory,
                                         Supplier<CircuitSnapshot.Reading> circuits,
                                         Optional<HealthStateAggregator> health,
                                         Supplier<List<DeliveryEngine.TenantShare>> shares,
                                         Supplier<List<TenantQuotaReadings.Reading>> quotaUse,
                                         Supplier<List<QuotaRefusals.Count>> refusals) {
        // A registry of its own, not the client's static default: every application in one JVM (the tests start
        // several) exposes its own metrics.
        PrometheusRegistry registry = new PrometheusRegistry();
        registerJvmMetrics(registry);
        TopicLabels labels = new TopicLabels(factory.getTopicLimit());
        TopicDepthSeries.register(registry, environment.metrics(), labels);
        CallbackLatencyHistogram.register(registry, environment.metrics());
        CircuitSeries.register(registry, circuits);
        HealthSeries.register(registry, health);
        TenantShareSeries.register(registry, shares);
        TenantQuotaSeries.register(registry, quotaUse, refusals);
        TopicActivity activity = new PrometheusTopicActivity(registry, labels);
        // Last: the bridge leaves out any Dropwizard metric named like one of the families above. Their names only:
        // a filter that takes none collects nothing, so no callback reads the store (or caches a reading) here.
        Set<String> natives = new HashSet<>();
        registry.scrape(name -> {
            natives.add(name);
            return false;
        });
        registry.register(new DropwizardBridge(environment.metrics(), natives));
        environment.admin().addServlet("prometheus", new PrometheusMetricsServlet(registry)).addMapping(PATH);
        return activity;
    }

    /**
     * The client's JVM instrumentation, by Prometheus's conventions ({@code jvm_memory_used_bytes{area}},
     * {@code jvm_gc_collection_seconds}, {@code process_cpu_seconds_total}, ...), in place of Dropwizard's
     * {@code jvm.*} gauges (which an application started from the command line has, and one started otherwise not).
     * Each part on its own rather than {@code JvmMetrics}, which keeps every registry it was given for good.
     */
    private static void registerJvmMetrics(PrometheusRegistry registry) {
        JvmThreadsMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmMemoryPoolAllocationMetrics.builder().register(registry);
        JvmMemoryMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
    }
}
