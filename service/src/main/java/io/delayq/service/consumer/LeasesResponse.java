package io.delayq.service.consumer;

import java.util.List;

/** Answer of {@code POST /v1/topics/{topic}/leases}: the leased jobs, possibly none. */
public record LeasesResponse(List<LeaseView> leases) {
}
