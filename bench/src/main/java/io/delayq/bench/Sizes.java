package io.delayq.bench;

import java.util.List;

/**
 * How big each workload is. {@link #full()} is BENCHMARK.md; {@link #quick()} runs everything in under two minutes;
 * {@link #tiny()} is for the test suite.
 *
 * @param reps            repetitions of each workload (median, min, max reported)
 * @param warmupSingle    untimed single adds per implementation before its first run
 * @param warmupBulk      untimed bulk adds
 * @param warmupDrain     untimed jobs drained
 * @param w1Jobs          W1 jobs (delay uniform in [10 s, 60 s])
 * @param w2Jobs          W2 jobs
 * @param w2SpanMs        W2 delays are uniform in [0, span]
 * @param w2IdleMs        consumers run idle this long before W2's producers start
 * @param lostAfterMs     W2/W4/W6: a job not received this long after its due time is lost
 * @param dupGraceMs      wait this long after the last receipt for duplicates
 * @param w3Jobs          W3 jobs
 * @param w5Sizes         W5 pending-job counts
 * @param w5Ops           W5 operations timed at each size (enqueue, and reserve + ack)
 * @param w4Jobs          W4 jobs through the service
 * @param w4SpanMs        W4 due times spread
 * @param w6Jobs          W6 jobs
 * @param w6SpanMs        W6 due times spread
 * @param serviceWarmupMs W4/W6: the service is warmed up with untimed rounds of the measured requests for at least
 *                        this long (its JIT compiler takes about a minute of load on 2 cores to settle)
 * @param ceilingRequests redis-benchmark requests per case
 * @param churnRate       PostgreSQL churn: jobs enqueued per second
 * @param churnSeconds    PostgreSQL churn: how long jobs are enqueued at that rate (run once per implementation)
 * @param churnMaxDelayMs PostgreSQL churn: delays are uniform in [0, this]
 */
public record Sizes(String name, int reps, int warmupSingle, int warmupBulk, int warmupDrain,
                    int w1Jobs, int w2Jobs, long w2SpanMs, long w2IdleMs, long lostAfterMs, long dupGraceMs,
                    int w3Jobs, List<Integer> w5Sizes, int w5Ops, int w4Jobs, long w4SpanMs, int w6Jobs, long w6SpanMs,
                    long serviceWarmupMs, int ceilingRequests, int churnRate, long churnSeconds, long churnMaxDelayMs) {

    public static final int PRODUCERS = 8;
    public static final int CONSUMERS = 8;
    public static final int BULK = 1000;

    public static Sizes full() {
        return new Sizes("full", 3, 100_000, 20_000, 20_000,
                100_000, 20_000, 10_000, 1_000, 30_000, 2_000,
                100_000, List.of(1_000_000, 8_000_000, 10_000_000), 20_000, 20_000, 10_000, 20_000, 10_000, 60_000, 100_000, 500, 600, 5_000);
    }

    public static Sizes quick() {
        return new Sizes("quick", 1, 5_000, 2_000, 2_000,
                5_000, 3_000, 2_000, 300, 5_000, 500,
                5_000, List.of(10_000, 100_000), 2_000, 2_000, 2_000, 2_000, 3_000, 5_000, 10_000, 500, 30, 5_000);
    }

    public static Sizes tiny() {
        return new Sizes("tiny", 1, 500, 500, 500,
                1_000, 600, 600, 200, 3_000, 300,
                1_000, List.of(1_000, 5_000), 300, 600, 600, 600, 1_500, 0, 2_000, 200, 2, 1_000);
    }

    /** The noisy neighbour's burst: jobs due at one instant for tenant A (BENCHMARK.md: 100,000). */
    public int noisyJobs() {
        return switch (name) {
            case "full" -> 100_000;
            case "quick" -> 10_000;
            default -> 1_000;
        };
    }

    public Sizes withReps(int r) {
        return new Sizes(name, r, warmupSingle, warmupBulk, warmupDrain, w1Jobs, w2Jobs, w2SpanMs, w2IdleMs, lostAfterMs,
                dupGraceMs, w3Jobs, w5Sizes, w5Ops, w4Jobs, w4SpanMs, w6Jobs, w6SpanMs, serviceWarmupMs, ceilingRequests,
                churnRate, churnSeconds, churnMaxDelayMs);
    }

    public Sizes withChurnSeconds(long seconds) {
        return new Sizes(name, reps, warmupSingle, warmupBulk, warmupDrain, w1Jobs, w2Jobs, w2SpanMs, w2IdleMs, lostAfterMs,
                dupGraceMs, w3Jobs, w5Sizes, w5Ops, w4Jobs, w4SpanMs, w6Jobs, w6SpanMs, serviceWarmupMs, ceilingRequests,
                churnRate, seconds, churnMaxDelayMs);
    }

    public Sizes withW5Sizes(List<Integer> s) {
        return new Sizes(name, reps, warmupSingle, warmupBulk, warmupDrain, w1Jobs, w2Jobs, w2SpanMs, w2IdleMs, lostAfterMs,
                dupGraceMs, w3Jobs, s, w5Ops, w4Jobs, w4SpanMs, w6Jobs, w6SpanMs, serviceWarmupMs, ceilingRequests,
                churnRate, churnSeconds, churnMaxDelayMs);
    }
}
