package io.delayq.core;

/**
 * Where a job is in its life. The {@link JobStore} methods are the transitions between these states.
 */
public enum JobState {
    /**
     * Waiting for its run time. Entered by {@link JobStore#enqueue}, by {@link JobStore#reschedule}, and by a failed
     * attempt that has attempts left ({@link JobStore#nack} with a retry, or an expired lease). Left by
     * {@link JobStore#reserve} once due, or by {@link JobStore#cancel}. Not final.
     */
    SCHEDULED,
    /**
     * One delivery attempt is in progress and holds a lease token until its deadline. Left by {@link JobStore#ack}
     * (success), {@link JobStore#nack} (failure), or by {@link JobStore#expireLeases} once the deadline passes, which
     * counts as a failed attempt. Not final.
     */
    LEASED,
    /** Delivered and acknowledged. Final. */
    SUCCEEDED,
    /** Attempts exhausted, or a failure the receiver said not to retry. Final; written to the outbox for the archive. */
    DEAD,
    /** Cancelled by a producer while it was scheduled. Final. */
    CANCELLED;

    public boolean isFinal() {
        return this == SUCCEEDED || this == DEAD || this == CANCELLED;
    }
}
