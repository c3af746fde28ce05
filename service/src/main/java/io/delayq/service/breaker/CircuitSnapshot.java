package io.delayq.service.breaker;

import io.delayq.core.JobStore;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The notable circuits (open, or with jobs held) as the store has them, read at most once per {@value #MAX_AGE_MS} ms
 * however often the health check, the gauges and the Prometheus scrape ask: one {@code notableCircuits} call of at
 * most {@value #MAX_NOTABLE} and one {@code count()} per period per instance, whatever the number of closed circuits
 * (issue 26, finding 5). The admin endpoint reads pages of the store itself.
 */
public final class CircuitSnapshot {
    static final long MAX_AGE_MS = 2_000;

    /** Notable circuits read at most: more open circuits than this are counted in {@code total} only. */
    static final int MAX_NOTABLE = 1_000;

    /**
     * The notable circuits, or why they could not be read ({@code error} non-null, the rest then the last known).
     *
     * @param circuits the open circuits and those with jobs held, by origin, at most {@value #MAX_NOTABLE}
     * @param total    how many origins have a circuit
     */
    public record Reading(List<OriginCircuit> circuits, long total, String error) {
        public Reading(List<OriginCircuit> circuits, String error) {
            this(circuits, circuits.size(), error);
        }
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
                last = new Reading(store.notableCircuits(MAX_NOTABLE), store.count(), null);
            } catch (RuntimeException e) {
                last = last == null ? new Reading(List.of(), 0, e.toString())
                        : new Reading(last.circuits(), last.total(), e.toString());
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
