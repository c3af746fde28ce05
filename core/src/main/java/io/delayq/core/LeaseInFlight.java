package io.delayq.core;

/**
 * A job held by a lease right now, as an operator sees it.
 *
 * @param id         the job's id
 * @param lane       the lane that leased it
 * @param attempt    the attempt the lease is for (1 = first)
 * @param deadlineMs when the lease expires unless acked, nacked or extended, epoch ms
 */
public record LeaseInFlight(String id, Delivery lane, int attempt, long deadlineMs) {
}
