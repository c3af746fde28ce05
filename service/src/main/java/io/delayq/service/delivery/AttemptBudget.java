package io.delayq.service.delivery;

/**
 * How a push lease's time is split between the HTTP attempt and recording its outcome. The lease is the attempt's
 * timeout (job, else topic, else {@code callbackTimeout}); the engine must write the outcome (an ack or a nack)
 * before the lease ends, or the store takes the lease back as "lease expired": a failed attempt, which on the last
 * attempt kills a job whose callback may well have answered 200.
 *
 * <p>So the HTTP request's timeout is what is left of the lease less a margin: 10 % of the attempt (at most 1 s),
 * but never less than recording needs — {@value #MIN_RECORDING_MS} ms for the hand-off to a store writer and a
 * pause, plus twice the slowest recent store write ({@link StoreWriteTimes}) — and never more than half the attempt.
 * Before, the margin was 10 % alone: 10 ms of a 100 ms timeout, no more than the default {@code ackFlushInterval},
 * with nothing left for the write itself. The {@link AckBatcher} writes at once an ack whose lease would end
 * before its batch is flushed plus {@link #recordingMs()}.
 */
final class AttemptBudget {
    static final long MIN_RECORDING_MS = 20;
    private static final long MAX_PROPORTIONAL_MS = 1_000;

    private final StoreWriteTimes writes;

    AttemptBudget(StoreWriteTimes writes) {
        this.writes = writes;
    }

    /** The time recording an outcome needs now: the floor plus twice the slowest recent store write. */
    long recordingMs() {
        return MIN_RECORDING_MS + 2 * writes.recentMaxMs();
    }

    /** The part of an attempt's lease kept for recording its outcome. */
    long marginMs(long attemptMs) {
        long proportional = Math.min(attemptMs / 10, MAX_PROPORTIONAL_MS);
        return Math.min(Math.max(proportional, recordingMs()), attemptMs / 2);
    }

    /**
     * @param attemptMs   the attempt's timeout
     * @param leaseLeftMs what is left of the lease now, by the store's clock
     * @return the HTTP timeout, at least 1 ms
     */
    long httpTimeoutMs(long attemptMs, long leaseLeftMs) {
        return Math.max(1, Math.min(attemptMs, leaseLeftMs) - marginMs(attemptMs));
    }
}
