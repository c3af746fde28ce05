package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;

/**
 * A lease in flight, as {@link DelayqClient#leasesInFlight(String, int)} lists them (earliest deadline first).
 *
 * @param lane     {@code PUSH} (a callback delivery) or {@code PULL} (a consumer's lease)
 * @param attempt  the attempt the lease is for, from 1
 * @param deadline when the lease ends unless acknowledged or extended
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record LeaseInFlight(String id, String lane, int attempt, Instant deadline) {
}
