package io.delayq.service.breaker;

import io.delayq.core.JobRef;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Spaces the jobs to one origin whose circuit just closed at {@code releasePerSecond} on this instance: each job gets
 * the next free slot, {@code max(now, last slot) + 1/rate}. A job whose slot is now goes; any other is held until its
 * slot, which stays <em>reserved</em> for it: when it comes back it goes without taking a new one (a job sent back to
 * the end of the queue every time it came due would never go). Times are the store's clock, in µs so that rates above
 * 1,000/s stay exact.
 *
 * <p>A job that another instance leases meanwhile is paced there; the slot reserved here is left unused (less load,
 * never more). Reservations are forgotten a minute after their slot, and at most {@value #MAX_RESERVED} are kept.
 */
final class ReleasePacer {
    /** A job back this little before its reserved slot (clock estimates, ms rounding) goes rather than waits again. */
    private static final long EARLY_TOLERANCE_MICROS = 20_000;
    private static final long FORGET_AFTER_MICROS = 60_000_000;
    /** Reservations kept at most (memory); a job beyond them waits for the queue to drain and then takes a slot. */
    static final int MAX_RESERVED = 100_000;

    private final Map<JobRef, Long> reserved = new LinkedHashMap<>();
    private long nextFreeMicros;

    /**
     * @return 0 when the job goes now, else the store time (epoch ms) until which it is held
     */
    synchronized long slot(JobRef job, long nowMs, int perSecond) {
        long now = nowMs * 1_000;
        Long mine = reserved.get(job);
        if (mine != null) {
            if (mine > now + EARLY_TOLERANCE_MICROS) {
                return ceilMs(mine); // back early: held again until the same slot, still its own
            }
            reserved.remove(job);
            return 0;
        }
        long slot = Math.max(now, nextFreeMicros);
        if (slot <= now) {
            nextFreeMicros = slot + Math.max(1, 1_000_000L / perSecond);
            return 0;
        }
        forgetOld(now);
        if (reserved.size() >= MAX_RESERVED) {
            return ceilMs(slot); // no slot taken: it comes back when the reserved ones have gone, and gets one then
        }
        nextFreeMicros = slot + Math.max(1, 1_000_000L / perSecond);
        reserved.put(job, slot);
        return ceilMs(slot);
    }

    /** Slots reserved and not yet used. */
    synchronized int reservedCount() {
        return reserved.size();
    }

    /** Slots are handed out in increasing order, so the oldest reservations are first. */
    private void forgetOld(long now) {
        Iterator<Long> slots = reserved.values().iterator();
        while (slots.hasNext() && slots.next() < now - FORGET_AFTER_MICROS) {
            slots.remove();
        }
    }

    private static long ceilMs(long micros) {
        return (micros + 999) / 1_000;
    }
}
