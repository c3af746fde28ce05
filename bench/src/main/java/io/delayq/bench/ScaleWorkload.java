package io.delayq.bench;

import java.io.PrintStream;

/** W5 placeholder until the engine lands. */
public final class ScaleWorkload {
    private final Results results;

    public ScaleWorkload(BenchRedis redis, Sizes sizes, Results results, PrintStream log) {
        this.results = results;
    }

    public void run() {
        results.note("W5", "delayq: skipped: not written yet");
    }
}
