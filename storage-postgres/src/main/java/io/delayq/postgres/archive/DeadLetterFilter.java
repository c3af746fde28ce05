package io.delayq.postgres.archive;

import io.delayq.core.JobRef;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;

import java.util.HashMap;
import java.util.Map;

/**
 * The {@code WHERE} conditions of a dead-letter listing or purge ({@code <filter>} in {@code deadLetters.sql} and
 * {@code purge.sql}), and their binds. Only the filters a query sets are in the SQL, so each combination is its own
 * statement and the planner picks the index made for it (V3) instead of a generic plan over "{@code :x IS NULL OR …}".
 * The SQL is made of fixed fragments only; every value is a bind.
 *
 * @param conditions {@code AND …} fragments, or empty
 * @param binds      the value of each bind the conditions name ({@code topic}, {@code id}, {@code fromMs},
 *                   {@code toMs}, {@code replayed}, {@code afterDeadAtMs}, {@code afterKey})
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

    /** The listing's filters without its cursor (a purge ignores limit and cursor). */
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
        if (after != null) {
            // a row comparison in the index's order: the next page starts right below the cursor's letter
            sql.append(" AND (dead_at, key) < (delayq_ts(:afterDeadAtMs), :afterKey)");
            binds.put("afterDeadAtMs", clamp(after.deadAt()));
            binds.put("afterKey", after.key());
        }
        return new DeadLetterFilter(sql.toString(), binds);
    }

    private static long clamp(long ms) {
        return Math.max(MIN_MS, Math.min(MAX_MS, ms));
    }
}
