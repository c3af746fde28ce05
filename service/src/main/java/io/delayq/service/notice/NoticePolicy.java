package io.delayq.service.notice;

/**
 * How dead notices are retried: attempts in all, a doubling wait between them with a cap, and how long one attempt
 * may take. Times are epoch ms by the store's clock.
 *
 * @param maxAttempts      attempts in all; after the last failed one the notice is FAILED for good
 * @param initialBackoffMs wait after the first failed attempt; doubles after each further one
 * @param maxBackoffMs     cap of that wait
 * @param timeoutMs        how long one attempt (connect, send, answer) may take
 */
public record NoticePolicy(int maxAttempts, long initialBackoffMs, long maxBackoffMs, long timeoutMs) {
    /**
     * What a claim adds to an attempt's timeout: time to record the outcome in the archive. A sender that has not
     * recorded its outcome by then is taken to have died, and another instance may send the notice again.
     */
    static final long CLAIM_MARGIN_MS = 5_000;

    public NoticePolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("deadNotices.maxAttempts must be at least 1, got " + maxAttempts);
        }
        if (initialBackoffMs < 1 || maxBackoffMs < initialBackoffMs) {
            throw new IllegalArgumentException("deadNotices.initialBackoff must be at least 1 ms and maxBackoff at"
                    + " least initialBackoff, got " + initialBackoffMs + " ms and " + maxBackoffMs + " ms");
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("deadNotices.timeout must be at least 1 ms, got " + timeoutMs);
        }
    }

    /**
     * When the next attempt is due after attempt {@code attemptsMade} failed at {@code nowMs}, or {@code -1} when that
     * was the last one: {@code initialBackoff × 2^(attemptsMade − 1)}, at most {@code maxBackoff}.
     */
    public long retryAt(int attemptsMade, long nowMs) {
        if (attemptsMade >= maxAttempts) {
            return -1L;
        }
        int doublings = Math.max(0, attemptsMade - 1);
        long wait = doublings >= 62 || initialBackoffMs > (maxBackoffMs >> doublings)
                ? maxBackoffMs
                : Math.min(maxBackoffMs, initialBackoffMs << doublings);
        return nowMs + wait;
    }

    /** When a claim made at {@code nowMs} lapses: the attempt's timeout plus {@link #CLAIM_MARGIN_MS}. */
    public long claimLapsesAt(long nowMs) {
        return nowMs + timeoutMs + CLAIM_MARGIN_MS;
    }
}
