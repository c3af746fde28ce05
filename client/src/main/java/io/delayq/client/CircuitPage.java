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
 * @param originRateLimits the configured origin rate limits ({@code delivery.originRateLimits}) the token may see, by
 *                   origin, circuit or not (the same on every page)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CircuitPage(boolean enabled, boolean kept, List<Circuit> items, String nextCursor,
                          List<OriginRateLimit> originRateLimits) {
    public CircuitPage {
        items = items == null ? List.of() : List.copyOf(items);
        originRateLimits = originRateLimits == null ? List.of() : List.copyOf(originRateLimits);
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
     * @param heldJobs            distinct jobs held for the origin (all instances); for a tenant's token, of its own
     *                            topics only
     * @param rateLimit           the origin's configured rate limit, {@code null} for none
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Circuit(String origin, String state, int consecutiveFailures, Instant openedAt, Instant closedAt,
                          Instant nextProbeAt, Long probeIntervalMs, long heldJobs, RateLimit rateLimit) {
        public boolean isOpen() {
            return "OPEN".equals(state);
        }
    }

    /** A configured origin rate limit: at most {@code perSecond} deliveries a second, up to {@code burst} at once. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record OriginRateLimit(String origin, double perSecond, int burst) {
    }
}
