package io.delayq.bench.peers;

import io.delayq.bench.BenchOptions;
import io.delayq.bench.BenchRedis;
import io.delayq.bench.Results;
import io.delayq.bench.Sizes;

import java.io.PrintStream;

/** BullMQ placeholder. */
public final class BullmqPeer {
    private final Results results;
    private final PrintStream log;

    public BullmqPeer(BenchRedis redis, Sizes sizes, Results results, PrintStream log) {
        this.results = results;
        this.log = log;
    }

    public void run(BenchOptions opts) {
        log.println("bullmq: skipped: not written yet");
        results.note("W1", "bullmq-6.7.0: skipped: not written yet");
    }
}
