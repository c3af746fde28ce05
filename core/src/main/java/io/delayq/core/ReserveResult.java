package io.delayq.core;

import java.util.List;

/**
 * The leases {@link JobStore#reserve} granted, and when the topic's next job is due after them.
 *
 * @param leases    the granted leases, earliest run time first
 * @param nextDueAt epoch ms of the earliest job still scheduled, or {@code -1} when none is; a caller arms its timer
 *                  for this instead of polling
 * @param now       the store's clock when it reserved, epoch ms
 * @param expired   due jobs this reserve found expired and made dead (cause {@link DeadCause#EXPIRED}) instead of
 *                  leasing them
 */
public record ReserveResult(List<Lease> leases, long nextDueAt, long now, int expired) {
    public ReserveResult {
        leases = List.copyOf(leases);
    }

    public ReserveResult(List<Lease> leases, long nextDueAt, long now) {
        this(leases, nextDueAt, now, 0);
    }
}
