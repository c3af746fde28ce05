package io.delayq.service.breaker;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.core.ratelimit.Rate;
import io.delayq.service.ratelimit.RateLimitSpec;

import java.time.Instant;
import java.util.List;

/**
 * One origin's circuit on the wire ({@code GET /v1/admin/circuits}). Times are RFC 3339 in UTC, by the store's clock;
 * absent when they never happened ({@code openedAt}, {@code closedAt}) or do not apply ({@code nextProbeAt} and
 * {@code probeIntervalMs} while closed).
 *
 * @param state               {@code OPEN}: jobs are held and probes test the origin; {@code CLOSED}: callbacks flow
 * @param consecutiveFailures failed attempts in a row (reset by an answer)
 * @param heldJobs            jobs held for the origin and not yet tried again (all instances); for a tenant's token (or
 *                            an operator viewing a tenant), of that tenant's topics only, never another tenant's
 * @param rateLimit           the origin's configured limit ({@code delivery.originRateLimits}); absent: none, so a
 *                            page shows both reasons a callback may wait (an open circuit, a limit) side by side
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CircuitView(String origin, String state, int consecutiveFailures, String openedAt, String closedAt,
                          String nextProbeAt, Long probeIntervalMs, Long heldJobs, RateLimitSpec rateLimit) {

    /** As an operator sees it: the held count of every tenant's jobs. */
    static CircuitView of(OriginCircuit c, Rate rate) {
        return of(c, rate, c.heldJobs());
    }

    /** As a tenant sees it: the shared state, with {@code heldJobs} the count of its own held jobs. */
    static CircuitView of(OriginCircuit c, Rate rate, long heldJobs) {
        boolean open = c.isOpen();
        return new CircuitView(c.origin(), c.state().name(), c.consecutiveFailures(), time(c.openedAt()),
                time(c.closedAt()), open ? time(c.nextProbeAt()) : null, open ? c.probeIntervalMs() : null,
                heldJobs, RateLimitSpec.of(rate));
    }

    private static String time(Long epochMs) {
        return epochMs == null ? null : Instant.ofEpochMilli(epochMs).toString();
    }

    /**
     * {@code GET /v1/admin/circuits}: one page of the origins the store has a circuit of, by origin.
     *
     * @param enabled    whether the breaker is on by default ({@code delivery.breaker.enabled}; topics may differ)
     * @param kept       whether the store keeps circuits at all
     * @param nextCursor the {@code cursor} of the next page; absent on the last
     * @param originRateLimits every configured origin limit the caller may see, by origin, on every page: an origin
     *                   the store has no circuit of (it never failed, or its closed circuit idled out) is limited
     *                   all the same, and is listed nowhere else
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Circuits(boolean enabled, boolean kept, List<CircuitView> items, String nextCursor,
                           List<OriginRateLimit> originRateLimits) {
    }

    /** One configured origin limit: at most {@code perSecond} deliveries a second, up to {@code burst} at once. */
    public record OriginRateLimit(String origin, double perSecond, int burst) {
    }
}
