package io.delayq.service.breaker;

import io.delayq.core.JobRef;
import io.delayq.core.breaker.CircuitBreakers;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The jobs this instance held or released for each origin since the last {@link #flush}, written with one
 * {@code updateHeld} per origin per flush (every second, and at stop), rather than one store call per job. By job: the
 * store keeps the set of jobs held for an origin, whose size is its held count (issue 26, finding 7), so a job held
 * again as it comes back is one member, not a +1 that a cancelled job's missing −1 would leave behind. The last change
 * of a job since the last flush wins (released then held again: held).
 */
final class HeldCounts {
    /** origin → job → held (true) or released (false). Guarded by this. */
    private Map<String, Map<JobRef, Boolean>> changes = new HashMap<>();

    synchronized void hold(String origin, JobRef job) {
        changes.computeIfAbsent(origin, o -> new HashMap<>()).put(job, true);
    }

    synchronized void release(String origin, JobRef job) {
        changes.computeIfAbsent(origin, o -> new HashMap<>()).put(job, false);
    }

    /**
     * Writes what changed since the last flush. An origin whose write fails is kept, to go with the next flush (its
     * later changes of the same jobs win).
     */
    void flush(CircuitBreakers store) {
        Map<String, Map<JobRef, Boolean>> taken;
        synchronized (this) {
            taken = changes;
            changes = new HashMap<>();
        }
        RuntimeException failed = null;
        for (Map.Entry<String, Map<JobRef, Boolean>> origin : taken.entrySet()) {
            List<JobRef> held = new ArrayList<>();
            List<JobRef> released = new ArrayList<>();
            origin.getValue().forEach((job, isHeld) -> (isHeld ? held : released).add(job));
            try {
                store.updateHeld(origin.getKey(), held, released);
            } catch (RuntimeException ex) {
                putBack(origin.getKey(), origin.getValue());
                failed = ex;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    private synchronized void putBack(String origin, Map<JobRef, Boolean> unwritten) {
        Map<JobRef, Boolean> newer = changes.computeIfAbsent(origin, o -> new HashMap<>());
        unwritten.forEach(newer::putIfAbsent);
    }
}
