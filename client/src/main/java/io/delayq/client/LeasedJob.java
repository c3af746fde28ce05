package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/**
 * A job leased to this consumer for one attempt. Ack, nack or extend it with its {@link #leaseToken()} before
 * {@link #leaseDeadline()}; after that the service hands it out again as the next attempt.
 *
 * @param id            the job id
 * @param topic         the topic
 * @param attempt       this attempt's number, from 1 (deduplicate on id + attempt: delivery is at least once)
 * @param maxAttempts   attempts the job is allowed in all
 * @param leaseToken    the lease token to present with ack, nack and extend, unchanged: opaque text (128 random bits
 *                      as 22 characters of base64url; a lease made by a service before 128-bit tokens has decimal
 *                      digits), good for this job and attempt only
 * @param leaseDeadline when the lease expires (the service's clock)
 * @param runAt         when the job was due
 * @param payload       the payload
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LeasedJob(String id, String topic, int attempt, int maxAttempts, String leaseToken, Instant leaseDeadline,
                        Instant runAt, JsonNode payload) {

    /**
     * Whether this is the job's last attempt: a failure now makes it dead — any nack, with a delay or without (so in a
     * {@link Worker}, a handler that throws, {@link Retry} included) — and sends its dead notice if it has an
     * {@code onDead} target.
     */
    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }

    /** The payload read as {@code type}. */
    public <T> T payloadAs(Class<T> type) {
        return Json.convert(payload, type);
    }
}
