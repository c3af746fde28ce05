package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonValue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A topic's endpoint circuit breaker ({@link TopicSettingsUpdate#breaker}): after {@code failureThreshold}
 * consecutive failed attempts to one callback origin, the origin's jobs are held (postponed without using an attempt)
 * while one probe per interval tests it. Fields not set take the service default.
 *
 * <pre>{@code TopicSettingsUpdate.create().breaker(Breaker.create().failureThreshold(5).probeInterval(Duration.ofSeconds(10)))}</pre>
 */
public final class Breaker {
    private final Map<String, Object> json = new LinkedHashMap<>();

    private Breaker() {
    }

    public static Breaker create() {
        return new Breaker();
    }

    /** The topic's callbacks without a breaker: every failed attempt counts, as before breakers existed. */
    public static Breaker off() {
        return create().enabled(false);
    }

    public Breaker enabled(boolean enabled) {
        json.put("enabled", enabled);
        return this;
    }

    /** Consecutive failed attempts (connection failure, timeout, 5xx) to one origin that open its circuit. */
    public Breaker failureThreshold(int failureThreshold) {
        json.put("failureThreshold", failureThreshold);
        return this;
    }

    /** Wait before the first probe of an open circuit; doubles after each failed probe. */
    public Breaker probeInterval(Duration probeInterval) {
        json.put("probeInterval", Backoff.duration(probeInterval));
        return this;
    }

    /** Cap of the wait between probes. */
    public Breaker maxProbeInterval(Duration maxProbeInterval) {
        json.put("maxProbeInterval", Backoff.duration(maxProbeInterval));
        return this;
    }

    /** Jobs per second (per service instance) sent to an origin whose circuit just closed, while its held jobs drain. */
    public Breaker releasePerSecond(int releasePerSecond) {
        json.put("releasePerSecond", releasePerSecond);
        return this;
    }

    @JsonValue
    Map<String, Object> json() {
        return json;
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
