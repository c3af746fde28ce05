package io.delayq.service.prometheus;

import io.delayq.core.DeadCause;
import io.delayq.service.history.TopicActivity;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-topic job counters and the delivery lateness histogram, fed by the hook the engine, the scheduler and the
 * consumer endpoints call once per job ({@link TopicActivity}). Counting is in memory only: a label lookup and an
 * atomic add.
 *
 * <p>The lateness histogram has no topic label: with its 18 buckets it would cost ~20 series per topic.
 */
final class PrometheusTopicActivity implements TopicActivity {
    private final TopicLabels labels;
    private final Counter enqueued;
    private final Counter delivered;
    private final Counter failed;
    private final Counter dead;
    private final Histogram lateness;
    private final List<Counter> counters;
    /** Labels whose four counters exist (at 0 until counted), so rates and ratios have a series from the start. */
    private final Set<String> initialised = ConcurrentHashMap.newKeySet();

    PrometheusTopicActivity(PrometheusRegistry registry, TopicLabels labels) {
        this.labels = labels;
        this.enqueued = perTopic("delayq_topic_enqueued", "Jobs created, by topic").register(registry);
        this.delivered = perTopic("delayq_topic_delivered", "Successful delivery attempts, by topic")
                .register(registry);
        this.failed = perTopic("delayq_topic_failed",
                "Failed delivery attempts (retried later, or dead), by topic").register(registry);
        this.dead = perTopic("delayq_topic_dead", "Jobs that became dead letters, by topic").register(registry);
        this.lateness = Histogram.builder()
                .name("delayq_delivery_lateness_seconds")
                .help("Time from a job's due time to the start of its delivery attempt, by the store's clock")
                .unit(Unit.SECONDS)
                .classicOnly()
                .classicUpperBounds(LatencyBuckets.SECONDS)
                .register(registry);
        this.counters = List.of(enqueued, delivered, failed, dead);
    }

    private String label(String topic) {
        String label = labels.of(topic);
        if (!initialised.contains(label) && initialised.add(label)) {
            counters.forEach(counter -> counter.initLabelValues(label));
        }
        return label;
    }

    private static Counter.Builder perTopic(String name, String help) {
        return Counter.builder().name(name).help(help).labelNames("topic");
    }

    @Override
    public void enqueued(String topic, int count) {
        enqueued.labelValues(label(topic)).inc(count);
    }

    @Override
    public void started(String topic, long latenessMs) {
        lateness.observe(Math.max(0, latenessMs) / 1_000.0);
    }

    @Override
    public void delivered(String topic) {
        delivered.labelValues(label(topic)).inc();
    }

    @Override
    public void failed(String topic) {
        failed.labelValues(label(topic)).inc();
    }

    @Override
    public void dead(String topic, DeadCause cause, int count) {
        if (count > 0) {
            dead.labelValues(label(topic)).inc(count);
        }
    }
}
