package io.delayq.service.prometheus;

import io.delayq.core.DeadCause;
import io.delayq.service.history.TopicActivity;

import java.util.List;

/**
 * Several {@link TopicActivity} listeners behind one, each told in turn: the stored per-topic history and the
 * Prometheus series see the same events from the one hook the engine and the scheduler call.
 */
public final class CompositeTopicActivity implements TopicActivity {
    private final List<TopicActivity> parts;

    private CompositeTopicActivity(List<TopicActivity> parts) {
        this.parts = parts;
    }

    public static TopicActivity of(TopicActivity... parts) {
        if (parts.length == 0) {
            throw new IllegalArgumentException("a composite topic activity needs at least one part");
        }
        return parts.length == 1 ? parts[0] : new CompositeTopicActivity(List.of(parts)); // List.of refuses nulls
    }

    @Override
    public void enqueued(String topic, int count) {
        for (TopicActivity part : parts) {
            part.enqueued(topic, count);
        }
    }

    @Override
    public void started(String topic, long latenessMs) {
        for (TopicActivity part : parts) {
            part.started(topic, latenessMs);
        }
    }

    @Override
    public void delivered(String topic) {
        for (TopicActivity part : parts) {
            part.delivered(topic);
        }
    }

    @Override
    public void failed(String topic) {
        for (TopicActivity part : parts) {
            part.failed(topic);
        }
    }

    @Override
    public void dead(String topic, DeadCause cause, int count) {
        for (TopicActivity part : parts) {
            part.dead(topic, cause, count);
        }
    }
}
