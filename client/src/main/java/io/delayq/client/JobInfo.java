package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.List;

/**
 * A job as the service shows it.
 *
 * @param topic       the topic
 * @param id          the id
 * @param state       SCHEDULED, LEASED, SUCCEEDED, DEAD or CANCELLED
 * @param runAt       when it is (or was) due
 * @param payload     the payload
 * @param attempts    attempts started so far
 * @param maxAttempts attempts allowed in all
 * @param callback    its own callback, or {@code null}
 * @param backoff     its own backoff as JSON, or {@code null}
 * @param timeoutMs   its own attempt timeout, or {@code null}
 * @param broadcast   whether it goes to every event subscriber
 * @param delivery    PUSH (the service delivers it) or PULL (it waits for consumers)
 * @param createdAt   when it was first accepted
 * @param finishedAt  when it reached a final state, or {@code null}
 * @param lastError   the last failure, or {@code null}
 * @param history     the last attempts, oldest first
 * @param onDead      its own dead-notice target, or {@code null} (in a dead letter: the target that applied)
 * @param cause       why it is DEAD ({@code ATTEMPTS_EXHAUSTED}, {@code EXPIRED}, {@code NO_RETRY}, {@code NO_CALLBACK},
 *                    {@code LEASE_EXPIRED}, {@code UNREADABLE}), or {@code null} when it is not
 * @param expiresAt   its own expiry, or {@code null}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record JobInfo(
        String topic,
        String id,
        String state,
        Instant runAt,
        JsonNode payload,
        int attempts,
        int maxAttempts,
        Callback callback,
        JsonNode backoff,
        Long timeoutMs,
        boolean broadcast,
        String delivery,
        Instant createdAt,
        Instant finishedAt,
        String lastError,
        List<Attempt> history,
        Callback onDead,
        String cause,
        Instant expiresAt) {

    public JobInfo {
        history = history == null ? List.of() : List.copyOf(history);
    }

    /** The payload read as {@code type}. */
    public <T> T payloadAs(Class<T> type) {
        return Json.convert(payload, type);
    }

    /**
     * One finished attempt.
     *
     * @param number     1-based attempt number
     * @param at         when it ended
     * @param error      why it failed, {@code null} for success
     * @param httpStatus the status of a failed attempt that got an HTTP answer
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Attempt(int number, Instant at, String error, Integer httpStatus) {
    }
}
