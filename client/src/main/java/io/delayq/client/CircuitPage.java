package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;

/**
 * One page of the callback origins' circuit breakers, by origin ({@code GET /v1/admin/circuits}, roles admin and
 * viewer).
 *
 * @param enabled    whether the breaker is on by default ({@code delivery.breaker.enabled}; topics may differ)
 * @param kept       whether the store keeps circuits at all
 * @param items      the circuits of this page
 * @param nextCursor give it to {@link DelayqClient#circuits(int, String)} for the next page; {@code null} on the last
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CircuitPage(boolean enabled, boolean kept, List<Circuit> items, String nextCursor) {
    public CircuitPage {
        items = items == null ? List.of() : List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }

    /**
     * One origin's circuit.
     *
     * @param state               {@code OPEN} (jobs held, probes test the origin) or {@code CLOSED}
     * @param nextProbeAt         while open: when the next probe may go
     * @param probeIntervalMs     while open: the current wait between probes
     * @param heldJobs            distinct jobs held for the origin (all instances)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Circuit(String origin, String state, int consecutiveFailures, Instant openedAt, Instant closedAt,
                          Instant nextProbeAt, Long probeIntervalMs, long heldJobs) {
        public boolean isOpen() {
            return "OPEN".equals(state);
        }
    }
}
