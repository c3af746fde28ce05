package io.delayq.service.listing;

import io.delayq.core.JobRules;
import io.delayq.core.JobState;
import io.delayq.core.listing.JobQuery;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.http.Times;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A job listing's filters as the API spells them, for {@code GET /v1/topics/{topic}/jobs} and a bulk operation's
 * {@code filter} alike: {@code state} (names, comma-separated or repeated), {@code from}/{@code to} (RFC 3339),
 * {@code idPrefix}, {@code payloadField} with {@code payloadValue}.
 */
public final class JobFilters {
    private JobFilters() {
    }

    /**
     * @throws InvalidFieldsException (400) a payload value without its field, or a field without its value
     * @throws IllegalArgumentException (422) any other bad filter, naming it
     */
    public static JobQuery query(String topic, List<String> states, String from, String to, String idPrefix,
                                 String payloadField, String payloadValue, int limit, String cursor) {
        String field = blankToNull(payloadField);
        String value = payloadValue == null || payloadValue.isEmpty() ? null : payloadValue;
        if ((field == null) != (value == null)) {
            throw new InvalidFieldsException(field == null
                    ? "payloadValue needs payloadField: name the payload field to compare (payloadField=order.id)"
                    : "payloadField needs payloadValue: give the value to compare it with (payloadValue=42)",
                    "payloadField", "payloadValue");
        }
        return new JobQuery(JobRules.checkClientTopic(topic), states(states), time("from", from), time("to", to),
                blankToNull(idPrefix), field, value, limit, blankToNull(cursor));
    }

    /** {@code scheduled,leased}: the names of {@link JobState}, any case; none (or blank) means the pending ones. */
    static Set<JobState> states(List<String> values) {
        Set<JobState> states = EnumSet.noneOf(JobState.class);
        if (values != null) {
            for (String value : values) {
                for (String name : value.split(",", -1)) {
                    String n = name.trim();
                    if (n.isEmpty()) {
                        continue;
                    }
                    try {
                        states.add(JobState.valueOf(n.toUpperCase(Locale.ROOT)));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("state " + JobRules.quote(n) + " is not a job state; use"
                                + " scheduled, leased, succeeded, dead or cancelled");
                    }
                }
            }
        }
        return states.isEmpty() ? JobQuery.PENDING : states;
    }

    /** The filter as a query string, for an operation's record and the audit log (limit and cursor left out). */
    public static String describe(JobQuery q) {
        StringBuilder out = new StringBuilder();
        append(out, "topic", q.topic());
        append(out, "state", q.states().stream().sorted().map(s -> s.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(",")));
        append(out, "from", q.dueFrom() == null ? null : Instant.ofEpochMilli(q.dueFrom()).toString());
        append(out, "to", q.dueTo() == null ? null : Instant.ofEpochMilli(q.dueTo()).toString());
        append(out, "idPrefix", q.idPrefix());
        append(out, "payloadField", q.payloadField());
        append(out, "payloadValue", q.payloadValue());
        return out.toString();
    }

    private static void append(StringBuilder out, String name, String value) {
        if (value != null) {
            if (!out.isEmpty()) {
                out.append('&');
            }
            out.append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    private static Long time(String name, String value) {
        String v = blankToNull(value);
        return v == null ? null : Times.parseRfc3339(name, v);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
