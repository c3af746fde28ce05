package io.delayq.service.delivery;

import com.codahale.metrics.MetricRegistry;

import java.util.concurrent.ConcurrentHashMap;

/** The engine's {@link TopicState} of every topic it has heard of, created on first use. */
final class TopicStates {
    private final ConcurrentHashMap<String, TopicState> topics = new ConcurrentHashMap<>();
    private final MetricRegistry metrics;

    TopicStates(MetricRegistry metrics) {
        this.metrics = metrics;
    }

    TopicState of(String topic) {
        return topics.computeIfAbsent(topic, t -> new TopicState(t, metrics, DeliveryMetrics.PREFIX));
    }
}
