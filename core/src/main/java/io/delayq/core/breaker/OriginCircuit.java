package io.delayq.core.breaker;

import java.util.Objects;

/**
 * One callback origin's circuit, as the store keeps it for every service instance. Times are epoch ms by the store's
 * clock.
 *
 * @param origin              {@code scheme://host:port} of the callbacks (see {@link Origins#of})
 * @param state               closed or open
 * @param consecutiveFailures failed attempts in a row (reset by a success)
 * @param openedAt            when it last opened, or {@code null} if it never did
 * @param closedAt            when it last closed after being open, or {@code null}
 * @param nextProbeAt         while open: when the next probe may be claimed; else 0
 * @param probeIntervalMs     while open: the current wait between probes (doubling, capped); else 0
 * @param heldJobs            jobs held for this origin and not yet tried again
 */
public record OriginCircuit(String origin, CircuitState state, int consecutiveFailures, Long openedAt, Long closedAt,
                            long nextProbeAt, long probeIntervalMs, long heldJobs) {

    public OriginCircuit {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(state, "state");
    }

    /** An origin the store has no record of: closed, no failures. */
    public static OriginCircuit closed(String origin) {
        return new OriginCircuit(origin, CircuitState.CLOSED, 0, null, null, 0, 0, 0);
    }

    public boolean isOpen() {
        return state == CircuitState.OPEN;
    }
}
