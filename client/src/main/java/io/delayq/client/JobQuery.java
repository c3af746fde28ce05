package io.delayq.client;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which jobs of a topic to list ({@code GET /v1/topics/{topic}/jobs}); every filter is optional. Pending jobs come in
 * due order (run time; a leased job's lease deadline), finished ones in finish order.
 *
 * <pre>{@code client.listJobs(JobQuery.topic("reminders").payload("campaign", "spring").limit(100))}</pre>
 */
public final class JobQuery {
    private final String topic;
    private final Map<String, Object> params = new LinkedHashMap<>();

    private JobQuery(String topic) {
        this.topic = topic;
    }

    /** The topic's pending jobs (scheduled and leased), first page. */
    public static JobQuery topic(String topic) {
        return new JobQuery(topic);
    }

    /**
     * Only these states: pending ones ({@code scheduled}, {@code leased}) or finished ones ({@code succeeded},
     * {@code dead}, {@code cancelled}), not both.
     */
    public JobQuery states(String... states) {
        return set("state", states.length == 0 ? null : String.join(",", states));
    }

    /** Only those due (or finished) at or after this time. */
    public JobQuery from(Instant from) {
        return set("from", from);
    }

    /** Only those due (or finished) before this time. */
    public JobQuery to(Instant to) {
        return set("to", to);
    }

    public JobQuery idPrefix(String prefix) {
        return set("idPrefix", prefix);
    }

    /** Only payloads whose field at this dot path ({@code order.id}) equals the value (a string, number or boolean). */
    public JobQuery payload(String field, String value) {
        set("payloadField", field);
        return set("payloadValue", value);
    }

    /** At most this many per page (the service's default is 50, at most 1000). */
    public JobQuery limit(int limit) {
        return set("limit", limit);
    }

    /** The page after the one whose {@link JobPage#nextCursor()} this is. */
    public JobQuery cursor(String cursor) {
        return set("cursor", cursor);
    }

    String topic() {
        return topic;
    }

    Map<String, Object> params() {
        return params;
    }

    private JobQuery set(String name, Object value) {
        if (value == null) {
            params.remove(name);
        } else {
            params.put(name, value.toString());
        }
        return this;
    }
}
