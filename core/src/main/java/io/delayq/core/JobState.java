package io.delayq.core;

/**
 * Where a job is in its life. The {@link JobStore} methods are the transitions between these states; both stores make
 * the same ones (storage-redis's Lua scripts, storage-postgres's {@code JobTransitions/*.sql}):
 * <ul>
 *   <li>{@code enqueue} → {@link #SCHEDULED};</li>
 *   <li>{@link #SCHEDULED} → {@link #LEASED} by {@code reserve} once due; → {@link #CANCELLED} by {@code cancel};
 *       → {@link #SCHEDULED} (a new run time) by {@code reschedule};</li>
 *   <li>{@link #LEASED} → {@link #SUCCEEDED} by {@code ack};</li>
 *   <li>{@link #LEASED} → {@link #SCHEDULED} by {@code nack} with attempts left, a held {@code nack},
 *       {@code expireLeases} (before the last attempt, and once on it), or {@code reschedule};</li>
 *   <li>{@link #LEASED} → {@link #DEAD} by {@code nack} of the last attempt or with a {@linkplain Failure#dead dead}
 *       failure, or by {@code expireLeases} when the last attempt's lease expires a second time; and, with cause
 *       {@code EXPIRED}, by {@code nack} or {@code expireLeases} when the job's {@code expiresAt} has passed or its
 *       next run time would come after it;</li>
 *   <li>{@link #SCHEDULED} → {@link #DEAD} (cause {@code EXPIRED}) by {@code reserve} or the expiry sweep, for a due
 *       job whose {@code expiresAt} has passed: it is not delivered;</li>
 *   <li>{@link #LEASED} → {@link #CANCELLED} by {@code cancel};</li>
 *   <li>{@link #DEAD}: replaying its dead letter schedules a <em>new</em> job; this one stays dead.</li>
 * </ul>
 * {@code extend} keeps a job {@link #LEASED} with a later deadline. The store's outbox carries {@link #DEAD} jobs (and
 * the {@link #SUCCEEDED} ones of topics that archive them) to the archive. A finished job stays readable, its id
 * taken, for the store's finished-job retention; then the store forgets it and the id may be used again.
 */
public enum JobState {
    /**
     * Waiting for its run time. Entered by {@link JobStore#enqueue}, and from {@link #LEASED} by:
     * {@link JobStore#nack} of a failed attempt with attempts left (after its retry delay); a
     * {@linkplain Failure#held() held} nack (an open circuit breaker postponed the job: its attempt number is given
     * back, so it never dies of it); {@link JobStore#expireLeases} before the last attempt (counted as a failed
     * attempt, due at once) and once on the last attempt (an unknown outcome: due at once under the same attempt
     * number, see {@link JobStore#EXPIRED_LAST_ATTEMPT_RETRIES}); and {@link JobStore#reschedule} (the attempt is
     * withdrawn and its number given back). A {@code reschedule} of a scheduled job stays here with a new run time.
     * Left by {@link JobStore#reserve} once due, or by {@link JobStore#cancel}. Not final.
     */
    SCHEDULED,
    /**
     * One delivery attempt is in progress and holds a lease token until its deadline ({@link JobStore#extend} moves
     * the deadline). Left by {@link JobStore#ack} ({@link #SUCCEEDED}); {@link JobStore#nack} ({@link #SCHEDULED}, or
     * {@link #DEAD} when no attempt is left or the failure says so); {@link JobStore#expireLeases} once the deadline
     * passes ({@link #SCHEDULED}, or {@link #DEAD} when the last attempt's lease expires a second time);
     * {@link JobStore#reschedule} ({@link #SCHEDULED}) or {@link JobStore#cancel} ({@link #CANCELLED}), which make its
     * token stale. Not final.
     */
    LEASED,
    /** Delivered and acknowledged ({@link JobStore#ack} of its lease). Final. */
    SUCCEEDED,
    /**
     * Given up, from {@link #LEASED} (or from {@link #SCHEDULED} when its {@code expiresAt} passed before it was
     * delivered: cause {@code EXPIRED}): its last attempt failed ({@link JobStore#nack}), a {@code nack} said
     * {@linkplain Failure#dead dead} (the service's, for a job due for push delivery with no callback left, neither
     * its own nor its topic's; a store's, for a job whose stored form this version cannot decode), or its last
     * attempt's lease expired a second time (the outcome is unknown; see
     * {@link JobStore#EXPIRED_LAST_ATTEMPT_RETRIES}). Final; written to the outbox for the archive, where it is a dead
     * letter. Replaying the dead letter schedules a new job ({@code <id>:<createdAt>:r<n>}); this one stays dead.
     */
    DEAD,
    /** Cancelled by a producer ({@link JobStore#cancel}) while it was scheduled or leased. Final. */
    CANCELLED;

    public boolean isFinal() {
        return this == SUCCEEDED || this == DEAD || this == CANCELLED;
    }
}
