package io.delayq.service.consumer;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.delayq.core.Job;

import java.time.Instant;

/** The data of one {@code event: job} on a topic's event stream. */
public record BroadcastEvent(String id, String topic, String runAt, @JsonRawValue String payload) {
    public static BroadcastEvent of(Job job) {
        return new BroadcastEvent(job.id(), job.topic(), Instant.ofEpochMilli(job.runAt()).toString(), job.payload());
    }
}
