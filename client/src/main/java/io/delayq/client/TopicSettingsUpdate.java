package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A change to a topic's settings ({@code PUT /v1/topics/{topic}}): only the fields set here change; {@code reset…}
 * sends {@code null}, which puts a field back to the service default.
 *
 * <pre>{@code client.updateTopic("emails", TopicSettingsUpdate.create().maxAttempts(5).paused(false));}</pre>
 */
public final class TopicSettingsUpdate {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private TopicSettingsUpdate() {
    }

    public static TopicSettingsUpdate create() {
        return new TopicSettingsUpdate();
    }

    public TopicSettingsUpdate callback(Callback callback) {
        fields.put("callback", callback);
        return this;
    }

    public TopicSettingsUpdate maxAttempts(Integer maxAttempts) {
        fields.put("maxAttempts", maxAttempts);
        return this;
    }

    public TopicSettingsUpdate backoff(Backoff backoff) {
        fields.put("backoff", backoff);
        return this;
    }

    public TopicSettingsUpdate timeout(Duration timeout) {
        fields.put("timeout", timeout == null ? null : Backoff.duration(timeout));
        return this;
    }

    public TopicSettingsUpdate paused(boolean paused) {
        fields.put("paused", paused);
        return this;
    }

    public TopicSettingsUpdate archiveSucceeded(boolean archiveSucceeded) {
        fields.put("archiveSucceeded", archiveSucceeded);
        return this;
    }

    /** Where dead notices of the topic's jobs go when a job names no {@code onDead} of its own. */
    public TopicSettingsUpdate onDead(Callback onDead) {
        fields.put("onDead", onDead);
        return this;
    }

    /** The topic's endpoint circuit breaker, replacing its breaker settings whole. */
    public TopicSettingsUpdate breaker(Breaker breaker) {
        fields.put("breaker", breaker);
        return this;
    }

    /** How long a callback that answered {@code 202 Accepted} has to ack or nack the job (1 s to 24 h). */
    public TopicSettingsUpdate asyncAckTimeout(Duration asyncAckTimeout) {
        fields.put("asyncAckTimeout", asyncAckTimeout == null ? null : Backoff.duration(asyncAckTimeout));
        return this;
    }

    /**
     * Whether every {@code 202 Accepted} of the topic's callbacks means "confirmed later through ack or nack" (with
     * the {@code Delayq-Lease-Token}). Without it only a 202 carrying {@code Delayq-Async-Ack: true} does; any other
     * 202 acknowledges the job like every 2xx.
     */
    public TopicSettingsUpdate asyncAck(boolean asyncAck) {
        fields.put("asyncAck", asyncAck);
        return this;
    }

    /**
     * Whether a failed attempt's error ({@code lastError}, the history, a dead notice's error) quotes the start of the
     * receiver's error answer; by default it names the status only.
     */
    public TopicSettingsUpdate errorBodies(boolean errorBodies) {
        fields.put("errorBodies", errorBodies);
        return this;
    }

    /**
     * At most {@code perSecond} deliveries and pull leases of the topic a second over all instances, up to
     * {@code burst} at once; jobs over it wait without using an attempt. {@code reset("rateLimit")} removes it.
     */
    public TopicSettingsUpdate rateLimit(double perSecond, int burst) {
        fields.put("rateLimit", RateLimit.of(perSecond, burst));
        return this;
    }

    /**
     * A job of the topic not delivered this long after its run time (a retry's: when the retry is due) is dead with
     * cause {@code EXPIRED} (1 s to 366 days); a job's own {@code expiresAt} comes first.
     */
    public TopicSettingsUpdate expiresAfter(Duration expiresAfter) {
        fields.put("expiresAfter", expiresAfter == null ? null : Backoff.duration(expiresAfter));
        return this;
    }

    /** Callback answers that end a job at once, dead with cause {@code NO_RETRY}, e.g. 400, 404, 410, 422. */
    public TopicSettingsUpdate noRetryStatuses(java.util.List<Integer> statuses) {
        fields.put("noRetryStatuses", statuses);
        return this;
    }

    /** Puts a setting back to the service default, e.g. {@code reset("callback")}. */
    public TopicSettingsUpdate reset(String field) {
        fields.put(field, null);
        return this;
    }

    /** The body, with {@code null} written out for reset fields (an object node keeps them whatever the mapper's inclusion). */
    @JsonValue
    ObjectNode json() {
        ObjectNode json = Json.DEFAULT.createObjectNode();
        fields.forEach((name, value) -> json.set(name, value == null ? json.nullNode() : Json.DEFAULT.valueToTree(value)));
        return json;
    }
}
