package io.delayq.service.prometheus;

import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;

/**
 * Which Dropwizard metrics the Prometheus bridge exposes: all of them, except
 * <ul>
 *   <li>those with a topic in their name ({@code delayq.topics.<topic>.*}, {@code delayq.delivery.topic.<topic>.*}):
 *   a series name per topic is unbounded cardinality; the labelled {@code delayq_topic_*} series carry the same
 *   numbers;</li>
 *   <li>those whose name the client would shorten onto another's: Prometheus reserves the suffixes {@code _total},
 *   {@code _created}, {@code _bucket} and {@code _info}, so Jersey's timer {@code X.get.total} (request time including
 *   filters) becomes {@code X_get}, the name of the method's own timer {@code X.get}; two families of one name fail
 *   the whole scrape. The method's own timer is kept.</li>
 * </ul>
 */
final class BridgedMetrics implements MetricFilter {
    private final MetricRegistry registry;

    BridgedMetrics(MetricRegistry registry) {
        this.registry = registry;
    }

    @Override
    public boolean matches(String name, Metric metric) {
        return !perTopic(name) && !shortenedOntoAnother(name);
    }

    static boolean perTopic(String name) {
        return name.startsWith(TopicDepthSeries.PREFIX) || name.startsWith("delayq.delivery.topic.");
    }

    private boolean shortenedOntoAnother(String name) {
        String sanitized = PrometheusNaming.sanitizeMetricName(name);
        if (sanitized.length() == name.length()) { // nothing stripped: the common case, one regex pass
            return false;
        }
        int cut = sanitized.length();
        // The stripped suffix's separator is at the cut; the shortened name is that of the metric before it.
        return cut > 0 && registry.getMetrics().containsKey(name.substring(0, cut));
    }
}
