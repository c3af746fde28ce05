package io.delayq.core;

/**
 * What {@link JobStore#reclaimLeases} did with the expired leases it took back.
 *
 * @param takenBack leases whose deadline had passed and that the store took back (due again, or dead)
 * @param expired   of those, jobs whose own expiry had passed as well: not handed out again but made dead with cause
 *                  {@link DeadCause#EXPIRED} (so that the caller can count them as it counts a reserve's)
 * @param died      of those, jobs whose expired lease was their last attempt, tried again as often as the store does:
 *                  made dead with cause {@link DeadCause#LEASE_EXPIRED} (so that the caller counts them as dead)
 */
public record ReclaimedLeases(int takenBack, int expired, int died) {
    public static final ReclaimedLeases NONE = new ReclaimedLeases(0, 0, 0);

    /** Leases taken back none of which died of their last attempt (the form before {@code died}). */
    public ReclaimedLeases(int takenBack, int expired) {
        this(takenBack, expired, 0);
    }

    public ReclaimedLeases plus(ReclaimedLeases other) {
        return new ReclaimedLeases(takenBack + other.takenBack, expired + other.expired, died + other.died);
    }
}
