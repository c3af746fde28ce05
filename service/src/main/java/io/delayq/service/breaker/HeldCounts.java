package io.delayq.service.breaker;

import io.delayq.core.breaker.CircuitBreakers;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The changes to each origin's held-jobs count, added up here and written with one {@code addHeld} per origin per
 * {@link #flush} (every second, and at stop), rather than one store call per job held or released. A job held again
 * as it comes back adds −1 and +1: nothing is written for it.
 */
final class HeldCounts {
    private final ConcurrentHashMap<String, LongAdder> deltas = new ConcurrentHashMap<>();

    void add(String origin, long delta) {
        deltas.computeIfAbsent(origin, o -> new LongAdder()).add(delta);
    }

    /** Writes what was added since the last flush. A write that fails is added back, to go with the next flush. */
    void flush(CircuitBreakers store) {
        RuntimeException failed = null;
        for (Map.Entry<String, LongAdder> e : deltas.entrySet()) {
            long delta = e.getValue().sumThenReset();
            if (delta == 0) {
                continue; // kept, not removed: an add racing a removal would be lost (one entry per origin held for)
            }
            try {
                store.addHeld(e.getKey(), delta);
            } catch (RuntimeException ex) {
                e.getValue().add(delta);
                failed = ex;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }
}
