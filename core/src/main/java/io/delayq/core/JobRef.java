package io.delayq.core;

import java.util.Objects;

/** The identity of a job: an id is unique within its topic. */
public record JobRef(String topic, String id) {
    public JobRef {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(id, "id");
    }

    @Override
    public String toString() {
        return topic + "/" + id;
    }
}
