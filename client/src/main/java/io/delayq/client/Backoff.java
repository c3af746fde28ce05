package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonValue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** How long the service waits between attempts of a job: an explicit schedule, or exponential growth. */
public final class Backoff {
    private final Map<String, Object> json;

    private Backoff(Map<String, Object> json) {
        this.json = json;
    }

    /** Waits these delays after the 1st, 2nd, … failure; the last one repeats. E.g. 15 s, 3 min, 10 min. */
    public static Backoff schedule(Duration... delays) {
        if (delays.length == 0) {
            throw new IllegalArgumentException("a schedule backoff needs at least one delay");
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("type", "schedule");
        json.put("delays", List.of(delays).stream().map(Backoff::duration).toList());
        return new Backoff(json);
    }

    /**
     * Waits {@code initial × multiplier^(n-1)} after the n-th failure, at most {@code max}, spread by ±{@code jitter}
     * (a fraction, 0..1) so that jobs failing together do not all come back together.
     */
    public static Backoff exponential(Duration initial, double multiplier, Duration max, double jitter) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("type", "exponential");
        json.put("initial", duration(initial));
        json.put("multiplier", multiplier);
        json.put("max", duration(max));
        json.put("jitter", jitter);
        return new Backoff(json);
    }

    @JsonValue
    Map<String, Object> json() {
        return json;
    }

    /** A duration as the service's configuration syntax reads it: whole milliseconds, e.g. {@code "1500ms"}. */
    static String duration(Duration d) {
        Objects.requireNonNull(d, "duration");
        if (d.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative: " + d);
        }
        return d.toMillis() + "ms";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Backoff b && json.equals(b.json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return json.toString();
    }
}
