package io.delayq.core.archive;

import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.OutboxEntry;

import java.util.List;
import java.util.Optional;

/**
 * The durable archive of finished jobs: dead letters (always) and succeeded jobs (per-topic opt-in). Fed from the
 * store's outbox by the {@link Archiver}; browsed, replayed and purged by operators.
 *
 * <p>The dead-letter operations have defaults that refuse, so an archive that only keeps history (or none) stays a
 * small class. Listings are newest first, ordered by ({@code deadAt}, {@code key}) descending, and their cursors
 * are {@link DeadLetterCursor}s naming the last item seen, so a page is stable while new dead letters arrive.
 * Failures to reach the backend are {@link io.delayq.core.StoreException}s with
 * {@link io.delayq.core.StoreStatus#UNAVAILABLE}.
 *
 * <p>Scopes. Every method taking a {@link DeadLetterQuery} — {@link #deadLetters}, {@link #countDeadLetters},
 * {@link #failureGroups}, {@link #purgeDeadLetters(DeadLetterQuery)}, and through them the bulk replay — selects only
 * letters of the query's {@link DeadLetterQuery#scope() scope}, as one more condition of the archive's own query on
 * the letters' topic, served by its topic index (never by reading letters and dropping those outside it): a tenant's
 * empty filter means its own topics, and a {@code topic} filter outside the scope matches nothing
 * ({@link DeadLetterQuery#scopeCondition()} says what to add). The methods that name one letter or job
 * ({@link #deadLetter(JobRef)}, {@link #purgeDeadLetters(JobRef)}, …) are not scoped: their caller checks that the
 * topic is the asker's.
 *
 * <p>Purges are final. Several archivers may hold the same outbox entry (one read it, another wrote and deleted it),
 * so an entry can be written again after its dead letter was purged. A purge therefore leaves a tombstone under the
 * letter's key, kept for a retention the archive documents, and {@link #write} does not bring back a dead letter
 * that has one. Purged letters are not listed, shown, found or replayed.
 */
public interface JobArchive extends AutoCloseable {

    /**
     * Writes finished jobs. A dead job with an {@link Job#onDead()} target is written with a
     * {@linkplain DeadNotice#pending pending} notice due at its death. Idempotent: writing the same entry twice leaves one
     * record (and does not reset its notice). A dead letter that was purged
     * (its tombstone still kept) is not written again; that entry counts as written. Returns only once the archive
     * has durably accepted every entry; throws otherwise, and the caller keeps them in the outbox.
     */
    void write(List<OutboxEntry> entries);

    /** The most recent archived record of a job, once it has left the store. */
    Optional<Job> find(JobRef ref);

    /** Dead letters matching {@code query}, newest first, one page of at most {@code query.limit()}. */
    default Page<DeadLetter> deadLetters(DeadLetterQuery query) {
        throw unsupported();
    }

    /** The newest dead letter of a job id, if any. */
    default Optional<DeadLetter> deadLetter(JobRef ref) {
        throw unsupported();
    }

    /** One dead letter by its {@link DeadLetter#key()}; empty when there is none or it was purged. */
    default Optional<DeadLetter> deadLetter(String key) {
        throw unsupported();
    }

    /**
     * Appends a replay to a dead letter, only if its replay count is still {@code expectedReplayCount} (so that two
     * operators replaying at once record one replay).
     *
     * @return true if recorded; false if the dead letter is gone (purged) or someone else recorded a replay first
     */
    default boolean recordReplay(String key, int expectedReplayCount, DeadLetter.Replay replay) {
        throw unsupported();
    }

    /**
     * Removes every dead letter of a job id, leaving a tombstone for each (see the class comment).
     *
     * @return how many were removed
     */
    default long purgeDeadLetters(JobRef ref) {
        throw unsupported();
    }

    /**
     * Removes every dead letter matching the query's filters (its limit and cursor are ignored), leaving a tombstone
     * for each.
     *
     * @return how many were removed
     */
    default long purgeDeadLetters(DeadLetterQuery filter) {
        throw unsupported();
    }

    /** How many dead letters match the query's filters (its limit and cursor are ignored): a bulk action's dry run. */
    default long countDeadLetters(DeadLetterQuery filter) {
        throw unsupported();
    }

    /**
     * The dead letters matching the query's filters (its limit and cursor are ignored), grouped by
     * {@link FailureSignature}: the largest groups first, at most {@code limit} of them. The archive aggregates with its
     * own query engine and indexes; it does not load letters into the JVM.
     *
     * @param nowMs the "now" that {@link FailureGroup#lastHour()} counts back from
     */
    default List<FailureGroup> failureGroups(DeadLetterQuery filter, int limit, long nowMs) {
        throw unsupported();
    }

    /**
     * Dead letters whose notice is {@linkplain DeadNotice#isPending() pending} and due ({@code nextAttemptAt <= nowMs}),
     * earliest due first, at most {@code limit}. Served by an index on the pending notices, so its cost does not grow
     * with the dead letters whose notices are settled or that have none.
     */
    default List<DeadLetter> dueNotices(long nowMs, int limit) {
        throw unsupported();
    }

    /**
     * Replaces a dead letter's notice, only if its notice's attempts are still {@code expectedAttempts} (so that of
     * several instances claiming one notice, one wins and sends it).
     *
     * @return true if recorded; false if the dead letter is gone (purged) or another caller recorded first
     */
    default boolean recordNotice(String key, int expectedAttempts, DeadNotice notice) {
        throw unsupported();
    }

    /** Bulk operations and the audit log, kept by an archive that keeps dead letters for browsing. */
    default OperatorLog operatorLog() {
        throw unsupported();
    }

    @Override
    void close();

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("this archive does not keep dead letters for browsing;"
                + " configure one that does (archive: {type: mongo} or {type: postgres})");
    }
}
