package io.delayq.core.listing;

import io.delayq.core.JobRules;
import io.delayq.core.JobState;
import io.delayq.core.archive.DeadLetterQuery;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which jobs of one topic {@link io.delayq.core.JobStore#listJobs} lists, and from where. A listing is either of the
 * pending states ({@link JobState#SCHEDULED}, {@link JobState#LEASED}), in due order, or of the finished ones the store
 * still retains ({@link JobState#SUCCEEDED}, {@link JobState#DEAD}, {@link JobState#CANCELLED}), in finish order;
 * never both at once (they have no common order to page through).
 *
 * <p>Each listed job has a position, its {@linkplain #positionOf due time}: its run time while scheduled, its lease
 * deadline while leased (when it is due again, should its attempt go unanswered), its finish time once finished. Jobs
 * are listed by (position, id), and {@code dueFrom}/{@code dueTo} bound the position.
 *
 * @param topic        the topic (required)
 * @param states       the states to list: all pending, or all finished ones (never empty)
 * @param dueFrom      only positions at or after this epoch ms, or {@code null}
 * @param dueTo        only positions before this epoch ms, or {@code null}
 * @param idPrefix     only ids starting with this, or {@code null}
 * @param payloadField with {@code payloadValue}: only payloads (JSON objects) whose field at this dot path equals the
 *                     value, as a JSON string or, when the value reads as one, a number or boolean (the dead-letter
 *                     filter's rule, {@link DeadLetterQuery#payloadField()})
 * @param payloadValue see {@code payloadField}
 * @param limit        at most this many jobs per page, 1 to {@link #MAX_LIMIT}
 * @param cursor       the previous page's {@link JobPage#nextCursor()}, or {@code null} for the first page
 */
public record JobQuery(String topic, Set<JobState> states, Long dueFrom, Long dueTo, String idPrefix,
                       String payloadField, String payloadValue, int limit, String cursor) {
    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_LIMIT = 1000;
    /**
     * How many jobs one page examines at most when a filter has to read each job (an id prefix on Redis, a payload
     * field on either store): a page that reaches it ends early, perhaps empty, with a cursor to go on from there.
     * So no request reads more than this many jobs (plus its {@code limit}), however large the topic.
     */
    public static final int EXAMINE_PER_PAGE = 1000;
    public static final Set<JobState> PENDING = Set.copyOf(EnumSet.of(JobState.SCHEDULED, JobState.LEASED));
    public static final Set<JobState> FINISHED =
            Set.copyOf(EnumSet.of(JobState.SUCCEEDED, JobState.DEAD, JobState.CANCELLED));

    public JobQuery {
        Objects.requireNonNull(topic, "topic");
        states = states == null || states.isEmpty() ? PENDING : Set.copyOf(EnumSet.copyOf(states));
        if (!PENDING.containsAll(states) && !FINISHED.containsAll(states)) {
            throw new IllegalArgumentException("state: list pending jobs (scheduled, leased) or finished ones"
                    + " (succeeded, dead, cancelled), not both at once: they are listed in different orders");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit is " + limit + "; use 1 to " + MAX_LIMIT);
        }
        if (dueFrom != null && dueTo != null && dueFrom > dueTo) {
            throw new IllegalArgumentException("from (" + dueFrom + ") is after to (" + dueTo + ")");
        }
        if ((payloadField == null) != (payloadValue == null)) {
            throw new IllegalArgumentException("payloadField and payloadValue go together: a payload filter needs both"
                    + " a field and a value (payloadField=order.id&payloadValue=42)");
        }
        if (payloadField != null && !DeadLetterQuery.PAYLOAD_FIELD.matcher(payloadField).matches()) {
            throw new IllegalArgumentException("payloadField " + JobRules.quote(payloadField)
                    + " is not a dot path of names made of letters, digits, '_' and '-' (at most 8 names of 64"
                    + " characters)");
        }
        if (payloadValue != null && payloadValue.length() > DeadLetterQuery.MAX_FILTER_LENGTH) {
            throw new IllegalArgumentException("payloadValue is longer than " + DeadLetterQuery.MAX_FILTER_LENGTH
                    + " characters");
        }
        if (idPrefix != null && (idPrefix.isEmpty() || idPrefix.length() > JobRules.MAX_NAME_CHARS
                || !idPrefix.chars().allMatch(JobQuery::idChar))) {
            throw new IllegalArgumentException("idPrefix " + JobRules.quote(idPrefix) + " is not the start of a job"
                    + " id: use 1 to " + JobRules.MAX_NAME_CHARS + " characters from A-Z, a-z, 0-9, '.', '_', '-' and ':'");
        }
        if (cursor != null) {
            JobCursor.parse(cursor); // refuses a damaged one here, before any store is asked
        }
    }

    /** The first page of a topic's pending jobs, every filter off. */
    public static JobQuery pending(String topic, int limit) {
        return new JobQuery(topic, PENDING, null, null, null, null, null, limit, null);
    }

    public JobQuery withCursor(String next) {
        return new JobQuery(topic, states, dueFrom, dueTo, idPrefix, payloadField, payloadValue, limit, next);
    }

    public JobQuery withLimit(int n) {
        return new JobQuery(topic, states, dueFrom, dueTo, idPrefix, payloadField, payloadValue, n, cursor);
    }

    /** Whether it lists finished jobs (by finish time) rather than pending ones (by due time). */
    public boolean finished() {
        return FINISHED.containsAll(states);
    }

    /**
     * Where a listing of this query starts, exclusive: after its cursor, or just before {@code dueFrom} (every id
     * sorts after the empty one), whichever is later; {@code null} from the very start.
     */
    public JobCursor start() {
        JobCursor after = cursor == null ? null : JobCursor.parse(cursor);
        JobCursor from = dueFrom == null ? null : new JobCursor(dueFrom, "");
        if (after == null) {
            return from;
        }
        return from == null || after.compareTo(from) > 0 ? after : from;
    }

    private static boolean idChar(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                || c == '-' || c == ':';
    }
}
