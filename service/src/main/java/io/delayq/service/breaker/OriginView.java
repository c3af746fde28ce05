package io.delayq.service.breaker;

import io.delayq.core.breaker.CircuitState;
import io.delayq.core.breaker.OriginCircuit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * This instance's view of one origin's circuit: the store's record as last read or written here, so that deciding
 * about a job costs no store call. It is replaced by every change this instance makes (the store answers each write
 * with the circuit after it) and read again when older than {@link #MAX_AGE_NANOS} — a circuit another instance
 * opened is seen here within about a second.
 */
final class OriginView {
    static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A release after a close lasts while jobs are held, and at most this long plus the time the backlog needs. */
    private static final long RELEASE_SLACK_MS = 60_000;

    final String origin;
    final ReleasePacer pacer = new ReleasePacer();
    /** Set while a success is on its way to the store, so that a burst of successes writes one. */
    final AtomicBoolean successPending = new AtomicBoolean();

    private volatile OriginCircuit circuit;
    private volatile long loadedAtNanos;
    // Guarded by this.
    private long probeNotBefore;
    private Long releaseFor;
    private long releaseEndsAt;

    OriginView(String origin) {
        this.origin = origin;
        this.circuit = OriginCircuit.closed(origin);
    }

    OriginCircuit circuit() {
        return circuit;
    }

    boolean isStale(long nowNanos) {
        return loadedAtNanos == 0 || nowNanos - loadedAtNanos > MAX_AGE_NANOS;
    }

    /** The circuit as the store has it now (a read or the answer to a write of this instance). */
    void update(OriginCircuit now) {
        circuit = now;
        touch();
    }

    /** Keeps the current view for another {@link #MAX_AGE_NANOS} (a read that failed is not retried per job). */
    void touch() {
        long now = System.nanoTime();
        loadedAtNanos = now == 0 ? 1 : now;
    }

    /** Whether this instance should ask the store for the probe now; one asks at a time, at most every 200 ms. */
    synchronized boolean mayClaimProbe(long nowMs) {
        if (nowMs < probeNotBefore) {
            return false;
        }
        probeNotBefore = nowMs + 200;
        return true;
    }

    /** This instance won the probe: the store moved the next one an interval on; the view does the same. */
    void probeClaimed(long nowMs) {
        OriginCircuit c = circuit;
        circuit = new OriginCircuit(c.origin(), c.state(), c.consecutiveFailures(), c.openedAt(), c.closedAt(),
                nowMs + Math.max(1, c.probeIntervalMs()), c.probeIntervalMs(), c.heldJobs());
    }

    /**
     * Whether jobs to this closed origin are still released at the paced rate: it closed after being open, jobs are
     * still held for it, and the release has not outlasted what its backlog needs (at {@code perSecond} on one
     * instance) plus a minute — a held count that drifted (a held job cancelled is never released) ends it then.
     */
    synchronized boolean releasing(OriginCircuit c, long nowMs, int perSecond) {
        if (c.state() != CircuitState.CLOSED || c.closedAt() == null || c.heldJobs() <= 0) {
            return false;
        }
        if (!c.closedAt().equals(releaseFor)) {
            releaseFor = c.closedAt();
            releaseEndsAt = c.closedAt() + RELEASE_SLACK_MS + c.heldJobs() * 1_000 / perSecond;
        }
        return nowMs < releaseEndsAt;
    }
}
