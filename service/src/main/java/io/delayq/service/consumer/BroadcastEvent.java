package io.delayq.service.consumer;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.delayq.core.Job;

import java.time.Instant;

/**
 * The data of one {@code event: job} on a topic's event stream; {@code traceparent} / {@code tracestate} are the W3C
 * trace context the producer enqueued the job with, absent when it sent none.
 */
public record BroadcastEvent(String id, String topic, String runAt, @JsonRawValue String payload,
                             @JsonInclude(JsonInclude.Include.NON_NULL) String traceparent,
                             @JsonInclude(JsonInclude.Include.NON_NULL) String tracestate) {
    public static BroadcastEvent of(Job job) {
        return new BroadcastEvent(job.id(), job.topic(), Instant.ofEpochMilli(job.runAt()).toString(), job.payload(),
                job.trace() == null ? null : job.trace().traceparent(),
                job.trace() == null ? null : job.trace().tracestate());
    }
}
