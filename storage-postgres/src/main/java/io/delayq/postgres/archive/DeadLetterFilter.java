package io.delayq.postgres.archive;

import io.delayq.core.JobRef;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.TopicScope;

import java.util.HashMap;
import java.util.Map;

/**
 * The {@code WHERE} conditions of a dead-letter listing or purge ({@code <filter>} in {@code dead_letters.sql} and
 * {@code purge.sql}), and their binds. Only the filters a query sets are in the SQL, so each combination is its own
 * statement and the planner picks the index made for it (V3) instead of a generic plan over "{@code :x IS NULL OR …}".
 * The SQL is made of fixed fragments only; every value is a bind. A {@link DeadLetterQuery#scope() scope} is one
 * fragment per exact-names list and per prefix ({@link #scope}), so scopes of the same shape share a statement.
 *
 * @param conditions {@code AND …} fragments, or empty
 * @param binds      the value of each bind the conditions name ({@code topic}, {@code id}, {@code fromMs},
 *                   {@code toMs}, {@code replayed}, {@code host}, {@code httpStatus}, {@code idFrom}, {@code idTo},
 *                   {@code idPrefix}, {@code payloadText}, {@code payloadLiteral}, {@code group}, {@code cause},
 *                   {@code afterDeadAtMs}, {@code afterKey}; a scope's {@code scopeTopics},
 *                   {@code scopeFrom<n>}, {@code scopeTo<n>}, {@code scopePrefix<n>})
 */
record DeadLetterFilter(String conditions, Map<String, Object> binds) {
    /**
     * Epoch ms that PostgreSQL's timestamptz holds with room to spare (years 1 to 9999): a bound outside it is moved
     * to it, which selects the same letters, instead of failing with "timestamp out of range".
     */
    static final long MIN_MS = -62_135_596_800_000L;
    static final long MAX_MS = 253_402_300_799_999L;

    DeadLetterFilter {
        binds = Map.copyOf(binds);
    }

    /** The listing's filters and its cursor's position. */
    static DeadLetterFilter listing(DeadLetterQuery query) {
        DeadLetterCursor after = query.cursor() == null ? null : DeadLetterCursor.decode(query.cursor());
        return of(query, after);
    }

    /** The listing's filters without its cursor (a purge, a count and the groups ignore limit and cursor). */
    static DeadLetterFilter purge(DeadLetterQuery query) {
        return of(query, null);
    }

    /** Every letter of one job id. */
    static DeadLetterFilter job(JobRef ref) {
        return new DeadLetterFilter(" AND topic = :topic AND id = :id", Map.of("topic", ref.topic(), "id", ref.id()));
    }

    private static DeadLetterFilter of(DeadLetterQuery query, DeadLetterCursor after) {
        StringBuilder sql = new StringBuilder();
        Map<String, Object> binds = new HashMap<>();
        if (query.topic() != null) {
            sql.append(" AND topic = :topic");
            binds.put("topic", query.topic());
        }
        TopicScope scope = query.scopeCondition();
        if (scope != null) {
            scope(scope, sql, binds);
        }
        if (query.fromMs() != null) {
            sql.append(" AND dead_at >= delayq_ts(:fromMs)");
            binds.put("fromMs", clamp(query.fromMs()));
        }
        if (query.toMs() != null) {
            sql.append(" AND dead_at < delayq_ts(:toMs)");
            binds.put("toMs", clamp(query.toMs()));
        }
        if (query.replayed() != null) {
            sql.append(" AND replayed = :replayed");
            binds.put("replayed", query.replayed());
        }
        if (query.host() != null) {
            sql.append(" AND signature_host = :host");
            binds.put("host", query.host());
        }
        if (query.httpStatus() != null) {
            sql.append(" AND http_status = :httpStatus");
            binds.put("httpStatus", query.httpStatus());
        }
        if (query.idPrefix() != null) {
            idPrefix(query.idPrefix(), sql, binds);
        }
        if (query.payloadField() != null) {
            // a containment each form of the value, through the GIN index (a BitmapOr of the two)
            PayloadContainment forms = PayloadContainment.of(query.payloadField(), query.payloadValue());
            sql.append(" AND (payload_doc @> CAST(:payloadText AS jsonb)");
            binds.put("payloadText", forms.asString());
            if (forms.asLiteral() != null) {
                sql.append(" OR payload_doc @> CAST(:payloadLiteral AS jsonb)");
                binds.put("payloadLiteral", forms.asLiteral());
            }
            sql.append(")");
        }
        if (query.group() != null) {
            sql.append(" AND signature_id = :group");
            binds.put("group", query.group());
        }
        if (query.cause() != null) {
            // a letter archived before causes existed has none in its job: it counts as ATTEMPTS_EXHAUSTED (V19's
            // expression index is on this very expression)
            sql.append(" AND coalesce(job ->> 'cause', 'ATTEMPTS_EXHAUSTED') = :cause");
            binds.put("cause", query.cause().name());
        }
        if (after != null) {
            // a row comparison in the index's order: the next page starts right below the cursor's letter
            sql.append(" AND (dead_at, key) < (delayq_ts(:afterDeadAtMs), :afterKey)");
            binds.put("afterDeadAtMs", clamp(after.deadAt()));
            binds.put("afterKey", after.key());
        }
        return new DeadLetterFilter(sql.toString(), binds);
    }

    /**
     * The letters of the scope's topics: {@code topic = ANY(exact names)} or, for each prefix, the topics in
     * {@code (prefix, successor(prefix))} — on the "C"-collated topic column that range is exactly the topics that
     * start with the prefix and go on (not the prefix itself), and a range of every index led by the topic, with no
     * LIKE pattern whose {@code _} or {@code %} would need escaping. An empty scope (a topic filter outside it) is
     * {@code FALSE}: the planner answers it without reading a row.
     */
    private static void scope(TopicScope scope, StringBuilder sql, Map<String, Object> binds) {
        if (scope.isEmpty()) {
            sql.append(" AND FALSE");
            return;
        }
        StringBuilder any = new StringBuilder();
        if (!scope.topics().isEmpty()) {
            any.append("topic = ANY(CAST(:scopeTopics AS text[]))");
            binds.put("scopeTopics", scope.topics().toArray(String[]::new));
        }
        int n = 0;
        for (String prefix : scope.prefixes()) {
            String end = TopicScope.successor(prefix);
            any.append(any.isEmpty() ? "" : " OR ").append("(topic > :scopeFrom").append(n);
            binds.put("scopeFrom" + n, prefix);
            if (end != null) {
                any.append(" AND topic < :scopeTo").append(n).append(")");
                binds.put("scopeTo" + n, end);
            } else { // only the last code point there is: no string of this length comes after it
                any.append(" AND starts_with(topic, :scopePrefix").append(n).append("))");
                binds.put("scopePrefix" + n, prefix);
            }
            n++;
        }
        sql.append(" AND (").append(any).append(")");
    }

    /**
     * Ids starting with the prefix, as a range of the "C"-collated id column (byte order of UTF-8, which is code point
     * order): from the prefix itself to the next string of its length, so that an index serves it and no character of
     * the prefix means anything but itself (as it would in LIKE).
     */
    private static void idPrefix(String prefix, StringBuilder sql, Map<String, Object> binds) {
        String end = successor(prefix);
        sql.append(" AND id >= :idFrom");
        binds.put("idFrom", prefix);
        if (end != null) {
            sql.append(" AND id < :idTo");
            binds.put("idTo", end);
        } else { // only the last code point there is: no string of this length comes after it
            sql.append(" AND starts_with(id, :idPrefix)");
            binds.put("idPrefix", prefix);
        }
    }

    /** The least string of the prefix's length greater than it, or null when there is none. */
    static String successor(String prefix) {
        return TopicScope.successor(prefix);
    }

    static long clamp(long ms) {
        return Math.max(MIN_MS, Math.min(MAX_MS, ms));
    }
}
