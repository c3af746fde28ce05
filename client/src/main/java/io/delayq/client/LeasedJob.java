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
 * @param leaseToken    the lease token to present with ack, nack and extend
 * @param leaseDeadline when the lease expires (the service's clock)
 * @param runAt         when the job was due
 * @param payload       the payload
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LeasedJob(String id, String topic, int attempt, String leaseToken, Instant leaseDeadline, Instant runAt,
                        JsonNode payload) {

    /** The payload read as {@code type}. */
    public <T> T payloadAs(Class<T> type) {
        return Json.convert(payload, type);
    }
}
