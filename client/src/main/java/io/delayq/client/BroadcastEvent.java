package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/**
 * A broadcast job, as every subscriber of its topic's event stream receives it.
 *
 * @param id      the job id
 * @param topic   the topic
 * @param runAt   when it was due
 * @param payload the payload
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BroadcastEvent(String id, String topic, Instant runAt, JsonNode payload) {

    /** The payload read as {@code type}. */
    public <T> T payloadAs(Class<T> type) {
        return Json.convert(payload, type);
    }
}
