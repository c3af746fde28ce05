package io.delayq.core;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.dropwizard.util.Duration;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * How long to wait before the next attempt after a failed one. In JSON:
 * {@code {"type":"schedule","delays":["15s","3m","10m"]}} or
 * {@code {"type":"exponential","initial":"1s","multiplier":2.0,"max":"1h","jitter":0.2}}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(Backoff.Schedule.class),
        @JsonSubTypes.Type(Backoff.Exponential.class)
})
public sealed interface Backoff {

    /**
     * The wait after attempt {@code failedAttempt} (1-based) failed.
     *
     * @param failedAttempt the attempt that just failed, from 1
     * @param random        source for jitter
     * @return milliseconds to wait, at least 0
     */
    long delayMillis(int failedAttempt, RandomGenerator random);

    /** The default: 1 s doubling to at most 1 h, with 20 % jitter. */
    static Backoff defaultBackoff() {
        return new Exponential(Duration.seconds(1), 2.0, Duration.hours(1), 0.2);
    }

    /** An explicit list of waits; the last one repeats when attempts outnumber it. */
    @JsonTypeName("schedule")
    record Schedule(List<Duration> delays) implements Backoff {
        public Schedule {
            if (delays == null || delays.isEmpty()) {
                throw new IllegalArgumentException("a schedule backoff needs at least one delay in \"delays\", "
                        + "e.g. {\"type\": \"schedule\", \"delays\": [\"15s\", \"3m\"]}");
            }
            for (int i = 0; i < delays.size(); i++) {
                if (delays.get(i) == null) {
                    throw new IllegalArgumentException("delays[" + i + "] is null; each delay is a duration such as "
                            + "\"30s\"");
                }
            }
            delays = List.copyOf(delays);
        }

        @Override
        public long delayMillis(int failedAttempt, RandomGenerator random) {
            int index = Math.min(Math.max(failedAttempt, 1), delays.size()) - 1;
            return delays.get(index).toMilliseconds();
        }
    }

    /**
     * {@code initial × multiplier^(failedAttempt-1)}, capped at {@code max}, then spread by ±{@code jitter} (a
     * fraction) so that jobs failing together do not all come back together.
     */
    @JsonTypeName("exponential")
    record Exponential(Duration initial, double multiplier, Duration max, double jitter) implements Backoff {
        public Exponential {
            if (initial == null) {
                throw new IllegalArgumentException("an exponential backoff needs \"initial\", the first wait, "
                        + "e.g. \"initial\": \"1s\"");
            }
            if (max == null) {
                throw new IllegalArgumentException("an exponential backoff needs \"max\", the longest wait, "
                        + "e.g. \"max\": \"1h\"");
            }
            // Written so that NaN fails too: every comparison with NaN is false.
            if (!(multiplier >= 1.0 && Double.isFinite(multiplier))) {
                throw new IllegalArgumentException("\"multiplier\" is " + multiplier + "; it must be a finite number "
                        + "of at least 1.0, e.g. \"multiplier\": 2.0");
            }
            if (!(jitter >= 0.0 && jitter <= 1.0)) {
                throw new IllegalArgumentException("\"jitter\" is " + jitter + "; it must be a number from 0.0 to "
                        + "1.0 (a fraction of each wait), e.g. \"jitter\": 0.2");
            }
        }

        @Override
        public long delayMillis(int failedAttempt, RandomGenerator random) {
            double base = initial.toMilliseconds() * Math.pow(multiplier, Math.max(failedAttempt, 1) - 1);
            double capped = Math.min(base, max.toMilliseconds());
            double spread = jitter == 0.0 ? 0.0 : capped * jitter * (2 * random.nextDouble() - 1);
            return Math.max(0L, Math.round(capped + spread));
        }
    }
}
