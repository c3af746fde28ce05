package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonValue;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which dead letters a bulk replay ({@link DelayqClient#replayDeadLetters}) or purge
 * ({@link DelayqClient#purgeDeadLetters}) takes. A purge needs at least one of topic, from, to or replayed.
 */
public final class DeadLetterFilter {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private DeadLetterFilter() {
    }

    /** No narrowing (allowed for replays only). */
    public static DeadLetterFilter all() {
        return new DeadLetterFilter();
    }

    public static DeadLetterFilter topic(String topic) {
        return all().set("topic", topic);
    }

    /** Died at or after this time. */
    public DeadLetterFilter from(Instant from) {
        return set("from", from == null ? null : from.toString());
    }

    /** Died before this time. */
    public DeadLetterFilter to(Instant to) {
        return set("to", to == null ? null : to.toString());
    }

    /** Replay: also dead letters replayed before (default false). */
    public DeadLetterFilter includeReplayed(boolean includeReplayed) {
        return set("includeReplayed", includeReplayed);
    }

    /**
     * Only replayed ones ({@code true}) or only never replayed ones ({@code false}), for a purge and a replay alike (a
     * replay without it takes the never replayed ones).
     */
    public DeadLetterFilter replayed(boolean replayed) {
        return set("replayed", replayed);
    }

    /** Replay: run the replayed jobs this long from now. */
    public DeadLetterFilter delay(Duration delay) {
        return set("delayMs", delay == null ? null : delay.toMillis());
    }

    /** Replay: at most this many per request (the answer says whether more match). */
    public DeadLetterFilter max(int max) {
        return set("max", max);
    }

    /** Replay: go on after the letters an earlier replay took ({@link BulkReplayResult#nextCursor()}). */
    public DeadLetterFilter cursor(String cursor) {
        return set("cursor", cursor);
    }

    /**
     * Purge: how many letters the operator confirmed (a count taken before); when more match, the service refuses
     * with {@link ConflictException} and purges nothing.
     */
    public DeadLetterFilter expectedCount(long expectedCount) {
        return set("expectedCount", expectedCount);
    }

    /** Only letters that died of this ({@code "EXPIRED"}, {@code "NO_RETRY"}, …; see {@link DeadLetter#cause()}). */
    public DeadLetterFilter cause(String cause) {
        return set("cause", cause);
    }

    @JsonValue
    Map<String, Object> json() {
        return fields;
    }

    private DeadLetterFilter set(String name, Object value) {
        if (value == null) {
            fields.remove(name);
        } else {
            fields.put(name, value);
        }
        return this;
    }
}
