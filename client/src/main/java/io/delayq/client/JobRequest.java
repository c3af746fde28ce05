package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.time.Duration;
import java.time.Instant;

/**
 * A job to schedule. Only the payload is required; everything else falls back to the topic's settings and then the
 * service's defaults. Build one with {@link #builder()}:
 *
 * <pre>{@code
 * JobRequest.builder().id("order-42-close").delay(Duration.ofMinutes(30)).payload(Map.of("order", 42)).build()
 * }</pre>
 */
public final class JobRequest {
    private final String id;
    private final Duration delay;
    private final Instant runAt;
    private final Object payload;
    private final Callback callback;
    private final Integer maxAttempts;
    private final Backoff backoff;
    private final Duration timeout;
    private final Boolean broadcast;
    private final Callback onDead;
    private final Instant expiresAt;

    private JobRequest(Builder b) {
        if (b.delay != null && b.runAt != null) {
            throw new IllegalArgumentException("give a job either a delay or a runAt, not both");
        }
        if (b.delay != null && b.delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + b.delay);
        }
        if (!b.payloadSet) {
            throw new IllegalArgumentException("a job needs a payload (any JSON value, e.g. a Map, a record or a JsonNode)");
        }
        this.id = b.id;
        this.delay = b.delay;
        this.runAt = b.runAt;
        this.payload = b.payload;
        this.callback = b.callback;
        this.maxAttempts = b.maxAttempts;
        this.backoff = b.backoff;
        this.timeout = b.timeout;
        this.broadcast = b.broadcast;
        this.onDead = b.onDead;
        this.expiresAt = b.expiresAt;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A job with this payload, due now. */
    public static JobRequest of(Object payload) {
        return builder().payload(payload).build();
    }

    public String id() {
        return id;
    }

    /** The request body, as the service reads it. */
    Body body(ObjectMapper mapper) {
        JsonNode json = payload instanceof JsonNode node ? node : mapper.valueToTree(payload);
        return new Body(id, delay == null ? null : delay.toMillis(), runAt == null ? null : runAt.toString(), json,
                callback, maxAttempts, backoff, timeout == null ? null : Backoff.duration(timeout), broadcast, onDead,
                expiresAt == null ? null : expiresAt.toString());
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Body(String id, Long delayMs, String runAt, @JsonInclude(JsonInclude.Include.ALWAYS) JsonNode payload,
                Callback callback, Integer maxAttempts, Backoff backoff, String timeout, Boolean broadcast,
                Callback onDead, String expiresAt) {
    }

    /** Builds a {@link JobRequest}. */
    public static final class Builder {
        private String id;
        private Duration delay;
        private Instant runAt;
        private Object payload;
        private boolean payloadSet;
        private Callback callback;
        private Integer maxAttempts;
        private Backoff backoff;
        private Duration timeout;
        private Boolean broadcast;
        private Callback onDead;
        private Instant expiresAt;

        private Builder() {
        }

        /** The idempotency key, unique within the topic; the service generates one (a UUIDv7) when absent. */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        /** Run this long after the service receives it (measured by the service's store clock). */
        public Builder delay(Duration delay) {
            this.delay = delay;
            return this;
        }

        /** Run at this time; a time in the past means now. */
        public Builder runAt(Instant runAt) {
            this.runAt = runAt;
            return this;
        }

        /** The payload: a {@link JsonNode}, or anything Jackson can write (records, maps, strings, numbers…). */
        public Builder payload(Object payload) {
            this.payload = payload;
            this.payloadSet = true;
            return this;
        }

        /** Push the job to this URL when due (else the topic's callback, else it waits for pulling consumers). */
        public Builder callback(Callback callback) {
            this.callback = callback;
            return this;
        }

        public Builder callback(String url) {
            return callback(Callback.of(url));
        }

        /** Attempts in all before the job is dead. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder backoff(Backoff backoff) {
            this.backoff = backoff;
            return this;
        }

        /** How long one attempt may take: the callback's timeout, or a pulling consumer's lease. */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** When due, send it to every subscriber of the topic's event stream instead of one consumer. */
        public Builder broadcast(boolean broadcast) {
            this.broadcast = broadcast;
            return this;
        }

        /**
         * If the job ends dead (its attempts used up), the service POSTs a signed dead notice here (the job, its last
         * error and its payload), overriding the topic's {@code onDead}. See docs/callbacks.md, "Dead notices".
         */
        public Builder onDead(Callback onDead) {
            this.onDead = onDead;
            return this;
        }

        /**
         * Not delivered by this time (first attempt or retry), the job is never delivered: it ends dead with cause
         * {@code EXPIRED}. Not before its run time. Without it the topic's {@code expiresAfter} applies, if set.
         */
        public Builder expiresAt(Instant expiresAt) {
            this.expiresAt = expiresAt;
            return this;
        }

        public Builder onDead(String url) {
            return onDead(Callback.of(url));
        }

        public JobRequest build() {
            return new JobRequest(this);
        }
    }
}
