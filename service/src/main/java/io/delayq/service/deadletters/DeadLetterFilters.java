package io.delayq.service.deadletters;

import io.delayq.core.DeadCause;
import io.delayq.core.JobRules;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.http.Times;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the dead-letter filters of a query string ({@code topic, from, to, replayed, host, status, idPrefix, group,
 * cause, payload.<field>=<value>} or its long form {@code payloadField=<field>&payloadValue=<value>}) or of a bulk operation's body into a {@link DeadLetterQuery}. An unknown parameter is
 * refused rather than ignored: a typo in a filter must not widen a purge to letters nobody meant.
 */
public final class DeadLetterFilters {
    static final String PAYLOAD_PREFIX = "payload.";
    private static final Set<String> KNOWN = Set.of("topic", "from", "to", "replayed", "host", "status", "idPrefix",
            "group", "payloadField", "payloadValue", "limit", "cursor", "cause");

    private DeadLetterFilters() {
    }

    /**
     * The filters of a list or groups request. {@code replayed} and {@code status} come typed from JAX-RS (so that
     * {@code replayed=maybe} is a 400 naming the parameter, like every typed parameter); {@code limit} and
     * {@code cursor} are read by the caller.
     */
    public static DeadLetterQuery fromQuery(MultivaluedMap<String, String> params, Boolean replayed, Integer status,
                                            int limit, String cursor) {
        String payloadField = null;
        String payloadValue = null;
        for (Map.Entry<String, List<String>> e : params.entrySet()) {
            String name = e.getKey();
            if (e.getValue().size() > 1) {
                throw new IllegalArgumentException("query parameter " + JobRules.quote(name) + " is given "
                        + e.getValue().size()
                        + " times; give each filter once");
            }
            if (name.startsWith(PAYLOAD_PREFIX)) {
                if (payloadField != null) {
                    throw new IllegalArgumentException("one payload filter at a time (payload." + payloadField
                            + " and " + name + " are both given)");
                }
                payloadField = name.substring(PAYLOAD_PREFIX.length());
                payloadValue = e.getValue().get(0);
            } else if (!KNOWN.contains(name)) {
                throw new IllegalArgumentException("unknown query parameter " + JobRules.quote(name)
                        + "; the filters are topic, from,"
                        + " to, replayed, host, status, idPrefix, group, cause and payload.<field> (or payloadField"
                        + " and payloadValue)");
            }
        }
        if (params.containsKey("payloadField") || params.containsKey("payloadValue")) {
            if (payloadField != null) {
                throw new IllegalArgumentException("one payload filter at a time (payload." + payloadField
                        + " and payloadField are both given)");
            }
            payloadField = params.getFirst("payloadField");
            payloadValue = params.getFirst("payloadValue");
        }
        return of(params.getFirst("topic"), params.getFirst("from"), params.getFirst("to"), replayed,
                params.getFirst("host"), status, params.getFirst("idPrefix"), payloadField, payloadValue,
                params.getFirst("group"), limit, cursor).withCause(cause(params.getFirst("cause")));
    }

    /**
     * A {@code cause} filter ({@code EXPIRED}, {@code no_retry}, …; see {@link DeadCause}); blank is none, an unknown
     * name a 422 that lists the known ones.
     */
    public static DeadCause cause(String text) {
        String c = blankToNull(text);
        return c == null ? null : DeadCause.parse(c);
    }

    /**
     * A filter from its parts (blank means absent); {@code IllegalArgumentException} (422) on a bad one. The topic is
     * any a store can hold ({@link JobRules#checkTopic}), one made only of dots included: a filter is never a path
     * step, and it is how letters stored under such a name by an earlier version are reached.
     */
    public static DeadLetterQuery of(String topic, String from, String to, Boolean replayed, String host,
                                     Integer status, String idPrefix, String payloadField, String payloadValue,
                                     String group, int limit, String cursor) {
        String c = blankToNull(cursor);
        if (c != null) {
            DeadLetterCursor.decode(c);
        }
        String t = blankToNull(topic);
        checkPayloadHalves(payloadField, payloadValue);
        return new DeadLetterQuery(t == null ? null : JobRules.checkTopic(t), time("from", from), time("to", to),
                replayed, limit, c, blankToNull(host), status, blankToNull(idPrefix), payloadField, payloadValue,
                blankToNull(group));
    }

    /**
     * A payload filter is a field and a value, or neither: a value without its field (or a blank field) would match
     * every letter and widen a purge to the whole topic, and a field without its value says nothing to match. The
     * value may be empty ({@code payload.note=} matches the empty string); the field may not.
     */
    private static void checkPayloadHalves(String payloadField, String payloadValue) {
        if (payloadField == null && payloadValue == null) {
            return;
        }
        if (payloadField == null || payloadField.isBlank() || payloadValue == null) {
            throw new InvalidFieldsException("payloadField and payloadValue go together: "
                    + (payloadField == null ? "payloadField is missing"
                    : payloadField.isBlank() ? "payloadField is empty" : "payloadValue is missing")
                    + ", and one half alone would not narrow the filter (in a query, payload.<field>=<value> gives"
                    + " both)", "payloadField", "payloadValue");
        }
    }

    /**
     * An {@code expectedCount}: absent, or the count of a dry run the operator confirmed (0 or more; 422 otherwise).
     */
    public static Long expectedCount(Long expectedCount) {
        if (expectedCount != null && expectedCount < 0) {
            throw new IllegalArgumentException("expectedCount is " + expectedCount + "; send the count the dry run"
                    + " answered (0 or more), or leave it out");
        }
        return expectedCount;
    }

    /**
     * Refuses (409) to act on more letters than the operator confirmed: letters that died after the dry run must not
     * be replayed or purged in a confirmation that never counted them. Fewer are fine (others replayed or purged some
     * meanwhile).
     */
    public static void checkExpectedCount(long matching, Long expectedCount) {
        if (expectedCount != null && matching > expectedCount) {
            throw new ClientErrorException(matching + " letters match the filter now, more than the " + expectedCount
                    + " confirmed (expectedCount): letters died since the dry run. Nothing was done; run the dry run"
                    + " again and confirm its count", Response.Status.CONFLICT);
        }
    }

    /** The filter as a query string, for an operation's record and the audit log (limit and cursor left out). */
    public static String describe(DeadLetterQuery q) {
        StringBuilder out = new StringBuilder();
        append(out, "topic", q.topic());
        append(out, "from", q.fromMs() == null ? null : Instant.ofEpochMilli(q.fromMs()).toString());
        append(out, "to", q.toMs() == null ? null : Instant.ofEpochMilli(q.toMs()).toString());
        append(out, "replayed", q.replayed());
        append(out, "host", q.host());
        append(out, "status", q.httpStatus());
        append(out, "idPrefix", q.idPrefix());
        append(out, "group", q.group());
        append(out, "cause", q.cause());
        if (q.payloadField() != null) {
            append(out, PAYLOAD_PREFIX + q.payloadField(), q.payloadValue());
        }
        return out.toString();
    }

    private static void append(StringBuilder out, String name, Object value) {
        if (value != null) {
            if (!out.isEmpty()) {
                out.append('&');
            }
            out.append(name).append('=').append(URLEncoder.encode(String.valueOf(value), StandardCharsets.UTF_8));
        }
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /**
     * RFC 3339 only, as every time of the API. Digits alone are refused, not read as epoch milliseconds: {@code
     * from=20260101} meant 1970 and widened a purge to every letter.
     */
    static Long time(String name, String value) {
        String v = blankToNull(value);
        return v == null ? null : Times.parseRfc3339(name, v);
    }
}
