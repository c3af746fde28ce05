package io.delayq.core.breaker;

import java.util.List;

/**
 * The circuits of callback origins, kept in the store so that every service instance sees the same state: when one
 * instance's attempts open an origin's circuit, every instance holds that origin's jobs. Each method is one atomic
 * operation on one origin's record (the store's clock decides every time), so instances never need to agree among
 * themselves. The number of records is the number of origins that ever failed, not of jobs.
 *
 * <p>The delivery engine calls {@link #recordFailure} for each failed attempt, and {@link #recordSuccess} only when
 * its view says the origin has failures or is open, so a healthy origin costs the store nothing.
 */
public interface CircuitBreakers {

    /**
     * A failed attempt to the origin (a connection failure, a timeout or a 5xx). Closed: counts it, and opens the
     * circuit when {@code policy.failureThreshold()} failures are reached in a row (the first probe is then due
     * {@code probeIntervalMs} later). Open (a probe failed): the wait doubles, capped by {@code maxProbeIntervalMs},
     * and the next probe is due after it.
     *
     * @return the circuit after the failure
     */
    OriginCircuit recordFailure(String origin, BreakerPolicy policy);

    /**
     * A successful attempt to the origin: the failures are reset, and an open circuit closes ({@code closedAt} set).
     *
     * @return the circuit after the success
     */
    OriginCircuit recordSuccess(String origin);

    /**
     * Claims the origin's next probe: true for exactly one caller once the open circuit's {@code nextProbeAt} has
     * passed (the next probe is then due one interval later, so a probe that hangs does not let another through at
     * once); false when closed or not yet due.
     */
    boolean claimProbe(String origin);

    /** Adds {@code delta} (negative: jobs released) to the origin's held jobs, never below 0. */
    void addHeld(String origin, long delta);

    /** The origin's circuit, or {@link OriginCircuit#closed} when the store has no record of it. */
    OriginCircuit circuit(String origin);

    /** Every origin the store has a record of, by origin. */
    List<OriginCircuit> circuits();
}
