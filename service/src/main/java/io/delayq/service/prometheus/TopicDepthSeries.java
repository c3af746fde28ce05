package io.delayq.service.prometheus;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Map;
import java.util.TreeMap;

/**
 * {@code delayq_topic_scheduled{topic}} and {@code delayq_topic_leased{topic}}: the per-topic depth gauges the service
 * already keeps ({@code delayq.topics.<topic>.scheduled} and {@code .leased}, io.delayq.service.metrics), relabelled
 * at scrape time with the bounded topic label. Reading them costs no store call here: each caches its store read for
 * a few seconds. A topic whose store read failed (null) has no sample, and adds nothing to {@code other}.
 */
final class TopicDepthSeries {
    static final String PREFIX = TopicDepthGauges.PREFIX;

    private TopicDepthSeries() {
    }

    static void register(PrometheusRegistry registry, MetricRegistry dropwizard, TopicLabels labels) {
        gauge("scheduled", "Jobs waiting for their due time, by topic", registry, dropwizard, labels);
        gauge("leased", "Jobs leased (being delivered or held by a consumer), by topic", registry, dropwizard,
                labels);
    }

    private static void gauge(String what, String help, PrometheusRegistry registry, MetricRegistry dropwizard,
                              TopicLabels labels) {
        String suffix = "." + what;
        GaugeWithCallback.builder()
                .name("delayq_topic_" + what)
                .help(help)
                .labelNames("topic")
                .callback(callback -> {
                    Map<String, Double> byLabel = new TreeMap<>();
                    dropwizard.getGauges((name, metric) -> name.startsWith(PREFIX) && name.endsWith(suffix))
                            .forEach((name, gauge) -> {
                                double value = valueOf(gauge);
                                if (value >= 0) {
                                    String topic = name.substring(PREFIX.length(), name.length() - suffix.length());
                                    byLabel.merge(labels.of(topic), value, Double::sum);
                                }
                            });
                    byLabel.forEach((topic, value) -> callback.call(value, topic));
                })
                .register(registry);
    }

    private static double valueOf(Gauge<?> gauge) {
        return gauge.getValue() instanceof Number number ? number.doubleValue() : -1;
    }
}
