package io.delayq.bench;

import io.delayq.bench.adapters.DelayqImpl;
import io.delayq.bench.adapters.NaiveImpl;
import io.delayq.bench.adapters.RedissonImpl;
import io.delayq.bench.peers.BullmqPeer;
import io.delayq.bench.peers.CeilingPeer;
import io.delayq.bench.report.ReportWriter;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark: delayq beside Redisson, BullMQ, the naive design and the redis-benchmark ceiling, on one private
 * Redis, one implementation at a time. See {@link BenchOptions} for the command line and bench/README.md.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        try {
            run(System.out, args);
            System.exit(0);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** Runs the benchmark and writes its report; returns what was written. */
    public static ReportWriter.Written run(PrintStream log, String... args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        BenchOptions opts = BenchOptions.parse(args);
        Sizes sizes = opts.sizes();
        Results results = new Results();
        Machine.describe(results);
        results.env("mode", sizes.name() + ", " + sizes.reps() + " repetition(s)"
                + (opts.serviceReps() != sizes.reps() ? " (W4/W6: " + opts.serviceReps() + ")" : ""));
        long started = System.currentTimeMillis();
        Budget budget = new Budget(started, opts.budgetMinutes(), results, log);
        try (BenchRedis redis = BenchRedis.start(opts.preferPathRedis())) {
            log.println("Redis: " + redis.description() + " on port " + redis.port() + ", no persistence");
            results.env("redis", redis.description() + ", no persistence, default settings (hz 10)");
            Workloads workloads = new Workloads(redis, sizes, results, log);
            List<Impl> impls = new ArrayList<>();
            if (opts.uses("delayq")) {
                impls.add(new DelayqImpl());
            }
            if (opts.uses("redisson")) {
                impls.add(new RedissonImpl());
            }
            if (opts.uses("naive")) {
                impls.add(new NaiveImpl());
            }
            List<String> library = new ArrayList<>();
            for (String w : List.of("W1", "W2", "W3")) {
                if (opts.runs(w)) {
                    library.add(w);
                }
            }
            // Most telling first, so that a run cut short by its time budget still has delayq and its best peers.
            for (Impl impl : library.isEmpty() ? List.<Impl>of() : impls) {
                if (budget.allows(impl.label(), library)) {
                    runLibrary(opts, workloads, impl, results, log);
                    checkpoint(results, sizes, opts, started);
                }
            }
            if ((opts.runs("CEILING") || opts.runs("W1")) && budget.allows("ceiling", List.of("CEILING"))) {
                new CeilingPeer(redis, sizes, results, log).run(opts.runs("CEILING"), opts.runs("W1"));
                checkpoint(results, sizes, opts, started);
            }
            if (!library.isEmpty() && opts.uses("bullmq") && budget.allows(BullmqPeer.LABEL, library)) {
                new BullmqPeer(redis, sizes, results, log).run(opts);
                checkpoint(results, sizes, opts, started);
            }
            if ((opts.runs("W4") || opts.runs("W6")) && budget.allows("delayq-service", service(opts))) {
                new ServiceWorkloads(redis, sizes.withReps(opts.serviceReps()), results, log, opts.serviceJar())
                        .run(opts.runs("W4"), opts.runs("W6"));
                checkpoint(results, sizes, opts, started);
            }
            // Last: filling Redis with 10M jobs leaves the machine slower for a while (allocator, page cache, the
            // JVM's grown heap); the peers and the service were measured slower after it than before it.
            if (opts.runs("W5") && opts.uses("delayq") && budget.allows("delayq", List.of("W5"))) {
                log.println("== W5 scale (delayq)");
                try {
                    new ScaleWorkload(redis, sizes, results, log).run();
                } catch (Exception e) {
                    results.note("W5", "delayq: failed: " + e);
                    log.println("  W5 failed: " + e);
                    log.println("  Redis SLOWLOG (slowest recent commands): " + redis.slowlog(5));
                }
                checkpoint(results, sizes, opts, started);
            }
        }
        finish(results, started);
        ReportWriter.Written w = ReportWriter.write(results, sizes, opts.out());
        log.println();
        log.println(w.text());
        log.println("Written: " + w.markdown() + ", " + w.json() + ", charts " + w.charts());
        return w;
    }

    private static List<String> service(BenchOptions opts) {
        List<String> out = new ArrayList<>();
        if (opts.runs("W4")) {
            out.add("W4");
        }
        if (opts.runs("W6")) {
            out.add("W6");
        }
        return out;
    }

    private static void finish(Results results, long started) {
        results.env("duration", String.format("%.1f min", (System.currentTimeMillis() - started) / 60_000.0));
        results.env("load average at end", Machine.run("cat", "/proc/loadavg").trim());
    }

    /** Writes the report so far, so that a run stopped early still leaves its tables behind. */
    private static void checkpoint(Results results, Sizes sizes, BenchOptions opts, long started) {
        try {
            finish(results, started);
            ReportWriter.write(results, sizes, opts.out());
        } catch (Exception e) {
            // the final write will report the problem
        }
    }

    /** Skips what would start after the time budget ran out, with a line in its tables. */
    private record Budget(long started, Integer minutes, Results results, PrintStream log) {
        boolean allows(String what, List<String> tables) {
            if (minutes == null) {
                return true;
            }
            double used = (System.currentTimeMillis() - started) / 60_000.0;
            if (used < minutes) {
                return true;
            }
            String why = String.format("%s: skipped: the run's time budget (--budget-min %d) was used up after %.1f min",
                    what, minutes, used);
            log.println(why);
            tables.forEach(t -> results.note(t, why));
            return false;
        }
    }

    private static void runLibrary(BenchOptions opts, Workloads workloads, Impl impl, Results results, PrintStream log) {
        log.println("== " + impl.label() + " (" + impl.semantics() + ")");
        try {
            workloads.warmUp(impl);
        } catch (Throwable e) {
            String why = impl.label() + ": skipped: could not run (" + rootMessage(e) + ")";
            log.println("  " + why);
            for (String t : List.of("W1", "W2", "W3")) {
                if (opts.runs(t)) {
                    results.note(t, why);
                }
            }
            return;
        }
        for (String w : List.of("W1", "W2", "W3")) {
            if (!opts.runs(w)) {
                continue;
            }
            for (int rep = 1; rep <= opts.sizes().reps(); rep++) {
                try {
                    switch (w) {
                        case "W1" -> workloads.w1(impl, rep);
                        case "W2" -> workloads.w2(impl, rep);
                        default -> workloads.w3(impl, rep);
                    }
                } catch (Throwable e) {
                    String why = impl.label() + " rep " + rep + ": failed (" + rootMessage(e) + ")";
                    log.println("  " + w + " " + why);
                    results.note(w, why);
                }
            }
        }
        if (opts.runs("W1")) {
            for (Results.Run r : results.runs("W1")) {
                if (r.impl().equals(impl.label())) {
                    results.add(new Results.Run("MEMORY", r.impl(), r.rep(), r.metrics(), java.util.Map.of()));
                }
            }
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e) : e + " ← " + t;
    }
}
