package io.delayq.core;

/**
 * What {@link JobStore#nackOutcome} did with a failed (or held) attempt.
 *
 * @param status  OK, STALE_LEASE or NOT_FOUND, as {@link JobStore#nack} answers
 * @param expired the job would have been delivered again only after its own expiry, so it was made dead with cause
 *                {@link DeadCause#EXPIRED} instead (only with status OK)
 */
public record NackOutcome(StoreStatus status, boolean expired) {
    public static NackOutcome of(StoreStatus status) {
        return new NackOutcome(status, false);
    }
}
