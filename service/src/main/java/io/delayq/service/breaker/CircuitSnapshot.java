package io.delayq.service.breaker;

import io.delayq.core.JobStore;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Every origin's circuit as the store has it, read at most once per {@value #MAX_AGE_MS} ms however often the health
 * check, the gauges and the Prometheus scrape ask: one {@code circuits()} call (O(origins that ever failed)) per
 * period per instance. The admin endpoint reads the store itself.
 */
public final class CircuitSnapshot {
    static final long MAX_AGE_MS = 2_000;

    /** The circuits, or why they could not be read ({@code error} non-null, {@code circuits} then the last known). */
    public record Reading(List<OriginCircuit> circuits, String error) {
    }

    private final CircuitBreakers store;
    private final String unsupported;
    private Reading last;
    private long readAtNanos;

    public CircuitSnapshot(JobStore store) {
        CircuitBreakers kept;
        String why = null;
        try {
            kept = store.circuitBreakers();
        } catch (UnsupportedOperationException none) {
            kept = null;
            why = "the store keeps no circuit breakers";
        }
        this.store = kept;
        this.unsupported = why;
    }

    /** Whether the store keeps circuits at all. */
    public boolean supported() {
        return store != null;
    }

    public synchronized Reading read() {
        if (store == null) {
            return new Reading(List.of(), unsupported);
        }
        long now = System.nanoTime();
        if (last == null || now - readAtNanos > TimeUnit.MILLISECONDS.toNanos(MAX_AGE_MS)) {
            try {
                last = new Reading(store.circuits(), null);
            } catch (RuntimeException e) {
                last = new Reading(last == null ? List.of() : last.circuits(), e.toString());
            }
            readAtNanos = now;
        }
        return last;
    }

    /** The circuits as last read (none when they could not be read yet). */
    public List<OriginCircuit> circuits() {
        return read().circuits();
    }
}
