package io.delayq.service.prometheus;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.JobStore;
import io.delayq.core.TopicStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Per-topic depth gauges, {@code delayq.topics.<topic>.scheduled} and {@code .leased}. A topic's gauges appear the
 * first time this instance schedules a job in it (or at start for every known topic), and read the store at most
 * once per {@link #REFRESH_SECONDS} however often they are scraped. While the store cannot be read their value is
 * null (unknown): {@code /metrics} shows null and the Prometheus series has no sample, rather than a number a sum or
 * an alert would take for a depth.
 */
public final class TopicDepthGauges {
    /** Every gauge is {@code PREFIX + topic + ".scheduled"} or {@code ".leased"} (the Prometheus relabelling reads them). */
    public static final String PREFIX = "delayq.topics.";

    private static final Logger LOG = LoggerFactory.getLogger(TopicDepthGauges.class);
    static final long REFRESH_SECONDS = 5;

    private final JobStore store;
    private final MetricRegistry metrics;
    private final Set<String> registered = ConcurrentHashMap.newKeySet();

    public TopicDepthGauges(JobStore store, MetricRegistry metrics) {
        this.store = store;
        this.metrics = metrics;
    }

    /** Registers the gauges of a topic, once. */
    public void track(String topic) {
        if (!registered.add(topic)) {
            return;
        }
        CachedGauge<TopicStats> stats = new CachedGauge<>(REFRESH_SECONDS, TimeUnit.SECONDS) {
            @Override
            protected TopicStats loadValue() {
                try {
                    return store.stats(topic);
                } catch (RuntimeException e) {
                    return null;
                }
            }
        };
        metrics.gauge(PREFIX + topic + ".scheduled", () -> (Gauge<Long>) () -> {
            TopicStats now = stats.getValue();
            return now == null ? null : now.scheduled();
        });
        metrics.gauge(PREFIX + topic + ".leased", () -> (Gauge<Long>) () -> {
            TopicStats now = stats.getValue();
            return now == null ? null : now.leased();
        });
    }

    /**
     * Removes the gauges of every topic not in {@code listed} (deleted or forgotten, on any instance: issue 26,
     * finding 12), so that the gauges do not grow with every topic ever used.
     */
    public void retainOnly(Set<String> listed) {
        for (String topic : List.copyOf(registered)) {
            if (!listed.contains(topic) && registered.remove(topic)) {
                metrics.remove(PREFIX + topic + ".scheduled");
                metrics.remove(PREFIX + topic + ".leased");
            }
        }
    }

    /** Topics with gauges, for tests. */
    Set<String> tracked() {
        return Set.copyOf(registered);
    }

    /** Registers the gauges of every topic the store knows; a store that cannot be reached is skipped. */
    public void trackKnownTopics() {
        try {
            store.topics().forEach(this::track);
        } catch (RuntimeException e) {
            LOG.warn("Cannot list topics for the depth gauges yet; each appears when a job is scheduled in it", e);
        }
    }
}
