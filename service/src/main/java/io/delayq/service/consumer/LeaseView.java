package io.delayq.service.consumer;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.delayq.core.Lease;

import java.time.Instant;

/**
 * One leased job as a consumer sees it. The consumer presents {@code leaseToken} with ack, nack and extend.
 *
 * @param id            the job id
 * @param topic         the topic
 * @param attempt       this attempt's number, from 1; receivers deduplicate on id + attempt
 * @param maxAttempts   attempts the job is allowed in all: when {@code attempt} reaches it, a nack (with a delay or
 *                      without) makes the job dead
 * @param leaseToken    the lease token (a string, opaque to consumers: 22 characters of base64url)
 * @param leaseDeadline when the lease expires unless extended (RFC 3339, the store's clock)
 * @param runAt         when the job was due (RFC 3339)
 * @param payload       the producer's payload, as the JSON value it was given
 * @param traceparent   the W3C traceparent the producer enqueued the job with, absent when it sent none: a consumer
 *                      continues the trace by making it the parent of its own span
 * @param tracestate    the tracestate that came with it, when any
 */
public record LeaseView(
        String id,
        String topic,
        int attempt,
        int maxAttempts,
        String leaseToken,
        String leaseDeadline,
        String runAt,
        @JsonRawValue String payload,
        @JsonInclude(JsonInclude.Include.NON_NULL) String traceparent,
        @JsonInclude(JsonInclude.Include.NON_NULL) String tracestate) {

    public static LeaseView of(Lease lease) {
        return new LeaseView(lease.job().id(), lease.job().topic(), lease.attempt(), lease.job().maxAttempts(),
                lease.token().text(),
                Instant.ofEpochMilli(lease.deadline()).toString(), Instant.ofEpochMilli(lease.job().runAt()).toString(),
                lease.job().payload(), lease.job().trace() == null ? null : lease.job().trace().traceparent(),
                lease.job().trace() == null ? null : lease.job().trace().tracestate());
    }
}
