package io.delayq.service.prometheus;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jvm.MemoryUsageGaugeSet;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.service.history.TopicActivity;
import io.dropwizard.core.setup.Environment;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.List;
import java.util.function.Supplier;

/**
 * {@value #PATH} on the admin port: the service's metrics for Prometheus, in the text format 0.0.4 or OpenMetrics
 * (by the request's {@code Accept}), written by the official client's servlet. See package-info for the series.
 *
 * <pre>{@code TopicActivity prometheus = PrometheusExposition.register(environment, factory);}</pre>
 *
 * Call it before the delivery engine is built (it takes over the engine's callback-latency timer), and pass the
 * returned activity to the engine and the scheduler (with the history, through {@link CompositeTopicActivity}).
 */
public final class PrometheusExposition {
    public static final String PATH = "/metrics/prometheus";

    private PrometheusExposition() {
    }

    /**
     * @param circuits the callback origins' circuits, read at scrape time for the per-origin circuit-breaker series
     *                 (a cached snapshot: see {@link CircuitSeries})
     */
    public static TopicActivity register(Environment environment, PrometheusFactory factory,
                                         Supplier<List<OriginCircuit>> circuits) {
        // A registry of its own, not the client's static default: every application in one JVM (the tests start
        // several) exposes its own metrics.
        PrometheusRegistry registry = new PrometheusRegistry();
        DropwizardExports.builder()
                .dropwizardRegistry(environment.metrics())
                .metricFilter(new BridgedMetrics(environment.metrics()))
                .register(registry);
        registerJvmMemoryGauges(environment.metrics());
        TopicLabels labels = new TopicLabels(factory.getTopicLimit());
        TopicDepthSeries.register(registry, environment.metrics(), labels);
        CallbackLatencyHistogram.register(registry, environment.metrics());
        CircuitSeries.register(registry, circuits);
        TopicActivity activity = new PrometheusTopicActivity(registry, labels);
        environment.admin().addServlet("prometheus", new PrometheusMetricsServlet(registry)).addMapping(PATH);
        return activity;
    }

    /**
     * Dropwizard registers its JVM gauges ({@code jvm.memory.heap.used}, ...) when started from the command line
     * ({@code Application.run(String...)}); an application started otherwise (embedded, DropwizardTestSupport) has
     * none. The heap gauges are added then, so {@code jvm_memory_heap_*} is always served.
     */
    private static void registerJvmMemoryGauges(MetricRegistry metrics) {
        if (metrics.getNames().stream().noneMatch(name -> name.startsWith("jvm.memory."))) {
            metrics.register("jvm.memory", new MemoryUsageGaugeSet());
        }
    }
}
