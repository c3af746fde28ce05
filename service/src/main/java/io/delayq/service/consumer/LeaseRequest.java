package io.delayq.service.consumer;

/**
 * Body of {@code POST /v1/topics/{topic}/leases}. Every field is optional.
 *
 * @param max     how many jobs at most, 1..1000 (default 1)
 * @param waitMs  how long to wait for a due job when none is due now, 0..60000 ms (default 0: answer at once)
 * @param leaseMs how long the consumer holds each job before it is handed out again, 1 ms .. 24 h (default: the
 *                job's own timeout, else its topic's, else the service default)
 */
public record LeaseRequest(Integer max, Long waitMs, Long leaseMs) {
    public static final int MAX_JOBS = 1000;
    public static final long MAX_WAIT_MS = 60_000;
    public static final long MAX_LEASE_MS = 24L * 3600 * 1000;

    /** The request with defaults filled in, or {@link IllegalArgumentException} naming the bad field. */
    public LeaseRequest resolved() {
        int m = max == null ? 1 : max;
        if (m < 1 || m > MAX_JOBS) {
            throw new IllegalArgumentException("max is " + m + "; ask for 1 to " + MAX_JOBS + " jobs");
        }
        long w = waitMs == null ? 0 : waitMs;
        if (w < 0 || w > MAX_WAIT_MS) {
            throw new IllegalArgumentException("waitMs is " + w + "; wait 0 to " + MAX_WAIT_MS + " ms");
        }
        if (leaseMs != null && (leaseMs < 1 || leaseMs > MAX_LEASE_MS)) {
            throw new IllegalArgumentException("leaseMs is " + leaseMs + "; a lease lasts 1 to " + MAX_LEASE_MS
                    + " ms (extend it while you work for longer)");
        }
        return new LeaseRequest(m, w, leaseMs);
    }
}
