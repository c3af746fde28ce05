package io.delayq.client;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which dead letters to list ({@code GET /v1/admin/dead-letters}); every filter is optional.
 *
 * <pre>{@code client.deadLetters(DeadLetterQuery.topic("emails").from(Instant.now().minus(Duration.ofDays(1))).limit(100))}</pre>
 */
public final class DeadLetterQuery {
    private final Map<String, Object> params = new LinkedHashMap<>();

    private DeadLetterQuery() {
    }

    /** Every dead letter, first page. */
    public static DeadLetterQuery all() {
        return new DeadLetterQuery();
    }

    public static DeadLetterQuery topic(String topic) {
        return all().set("topic", topic);
    }

    /** Only those that died at or after this time. */
    public DeadLetterQuery from(Instant from) {
        return set("from", from);
    }

    /** Only those that died before this time. */
    public DeadLetterQuery to(Instant to) {
        return set("to", to);
    }

    /** {@code true}: only replayed ones; {@code false}: only never replayed ones. */
    public DeadLetterQuery replayed(boolean replayed) {
        return set("replayed", replayed);
    }

    /** At most this many per page (the service's default is 50). */
    public DeadLetterQuery limit(int limit) {
        return set("limit", limit);
    }

    /** The page after the one whose {@link DeadLetterPage#nextCursor()} this is. */
    public DeadLetterQuery cursor(String cursor) {
        return set("cursor", cursor);
    }

    /** Only letters that died of this ({@code "EXPIRED"}, {@code "NO_RETRY"}, …; see {@link DeadLetter#cause()}). */
    public DeadLetterQuery cause(String cause) {
        return set("cause", cause);
    }

    /** Only letters whose callback was this {@code host[:port]} (a failure group's host). */
    public DeadLetterQuery host(String host) {
        return set("host", host);
    }

    /** Only letters whose last attempt got this HTTP status. */
    public DeadLetterQuery status(int status) {
        return set("status", status);
    }

    /** Only job ids starting with this. */
    public DeadLetterQuery idPrefix(String idPrefix) {
        return set("idPrefix", idPrefix);
    }

    /** Only this failure group: a {@link FailureGroup.Signature#id()} (12 hex digits). */
    public DeadLetterQuery group(String group) {
        return set("group", group);
    }

    /**
     * Only payloads whose field at this dot path ({@code order.id}) equals the value, as a JSON string or, when the
     * value reads as one, a number or boolean. One payload filter per query.
     */
    public DeadLetterQuery payload(String field, String value) {
        return set("payloadField", field).set("payloadValue", value);
    }

    Map<String, Object> params() {
        return params;
    }

    private DeadLetterQuery set(String name, Object value) {
        if (value == null) {
            params.remove(name);
        } else {
            // Numbers and booleans stay typed: the bulk operation's JSON filter (DeadLetterOperation) takes them
            // as such, and the query string prints them the same.
            params.put(name, value instanceof Number || value instanceof Boolean ? value : value.toString());
        }
        return this;
    }
}
