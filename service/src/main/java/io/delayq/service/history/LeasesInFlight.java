package io.delayq.service.history;

import java.util.List;

/** {@code GET /v1/topics/{topic}/leases}: the leases in flight, earliest deadline first. */
public record LeasesInFlight(List<LeaseInFlightView> items) {
}
