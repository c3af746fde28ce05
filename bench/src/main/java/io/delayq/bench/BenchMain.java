package io.delayq.bench;

import io.delayq.bench.adapters.DelayqImpl;
import io.delayq.bench.adapters.NaiveImpl;
import io.delayq.bench.adapters.RedissonImpl;
import io.delayq.bench.peers.BullmqPeer;
import io.delayq.bench.peers.CeilingPeer;
import io.delayq.bench.peers.PgNodePeer;
import io.delayq.bench.report.ReportWriter;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark: delayq beside Redisson, BullMQ, the naive design and the redis-benchmark ceiling, on one private
 * Redis; then delayq on PostgreSQL beside graphile-worker and pg-boss, on one private PostgreSQL; one implementation at
 * a time. See {@link BenchOptions} for the command line and bench/README.md.
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
        results.env("store", opts.store());
        long started = System.currentTimeMillis();
        Budget budget = new Budget(started, opts.budgetMinutes(), results, log);
        BenchRedis redis = opts.redisPart() ? BenchRedis.start(opts.preferPathRedis()) : null;
        try {
            if (redis != null) {
                runRedis(opts, redis, results, log, budget, started);
            }
            // Before W5: filling Redis with 10M jobs leaves the machine (and this JVM, which runs delayq's adapter)
            // slower for a while. The PostgreSQL part starts its own server and stops it when it is done.
            if (opts.postgresPart()) {
                runPostgres(opts, results, log, budget, started);
            }
            if (opts.clusterPart() && opts.uses("delayq")
                    && budget.allows("cluster scaling", List.of("SCALE-W1", "SCALE-W3", "SCALE-W4"))) {
                new ClusterScale(opts, results, log).run();
                checkpoint(results, sizes, opts, started);
            }
            // Last: filling Redis with 10M jobs leaves the machine slower for a while (allocator, page cache, the
            // JVM's grown heap); the peers and the service were measured slower after it than before it.
            if (redis != null && opts.runs("W5") && opts.uses("delayq") && budget.allows("delayq", List.of("W5"))) {
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
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
        finish(results, started);
        ReportWriter.Written w = ReportWriter.write(results, sizes, opts.out());
        log.println();
        log.println(w.text());
        log.println("Written: " + w.markdown() + ", " + w.json() + ", charts " + w.charts());
        return w;
    }

    /** The Redis part, as it always ran: W1–W3 of the Java implementations, the ceiling, BullMQ, W4/W6 (W5 comes last). */
    private static void runRedis(BenchOptions opts, BenchRedis redis, Results results, PrintStream log, Budget budget,
                                 long started) throws Exception {
        Sizes sizes = opts.sizes();
        log.println("Redis: " + redis.description() + " on port " + redis.port() + ", no persistence");
        results.env("redis", redis.description() + ", no persistence, default settings (hz 10)");
        Workloads workloads = new Workloads(new RedisBackend(redis), sizes, results, log);
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
        List<String> library = library(opts);
        // Most telling first, so that a run cut short by its time budget still has delayq and its best peers.
        for (Impl impl : library.isEmpty() ? List.<Impl>of() : impls) {
            if (budget.allows(impl.label(), library)) {
                runLibrary(opts, workloads, impl, results, log, "", "MEMORY");
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
            new ServiceWorkloads(new RedisBackend(redis), sizes.withReps(opts.serviceReps()), results, log, opts.serviceJar())
                    .run(opts.runs("W4"), opts.runs("W6"));
            checkpoint(results, sizes, opts, started);
        }
        if (opts.runs("NOISY") && opts.uses("delayq") && budget.allows("noisy neighbour", List.of("NOISY"))) {
            new NoisyNeighbour(new RedisBackend(redis), sizes.withReps(opts.serviceReps()), results, log,
                    opts.serviceJar()).run();
            checkpoint(results, sizes, opts, started);
        }
        if (opts.runs("RATE") && opts.uses("delayq") && budget.allows("rate-limit precision", List.of("RATE"))) {
            new RatePrecision(new RedisBackend(redis), sizes.withReps(opts.serviceReps()), results, log,
                    opts.serviceJar()).run();
            checkpoint(results, sizes, opts, started);
        }
    }

    /**
     * The PostgreSQL part on its own server: delayq's JobStore (W1–W3), graphile-worker and pg-boss (W1–W3), the
     * service (W4), then the churn of each. One implementation at a time, a new database per run.
     */
    private static void runPostgres(BenchOptions opts, Results results, PrintStream log, Budget budget, long started) {
        Sizes sizes = opts.sizes();
        List<String> library = library(opts);
        boolean churn = opts.runs("CHURN");
        boolean w4 = opts.runs("W4");
        boolean noisy = opts.runs("NOISY") && opts.uses("delayq");
        List<String> tables = new ArrayList<>();
        library.forEach(w -> tables.add("PG-" + w));
        if (w4) {
            tables.add("PG-W4");
        }
        if (churn) {
            tables.add("PG-CHURN");
        }
        if (noisy) {
            tables.add("PG-" + NoisyNeighbour.TABLE);
        }
        boolean rate = opts.runs("RATE") && opts.uses("delayq");
        if (rate) {
            tables.add("PG-" + RatePrecision.TABLE);
        }
        if (tables.isEmpty()) {
            return;
        }
        BenchPostgres pg;
        try {
            pg = BenchPostgres.start(opts.pgSettings());
        } catch (Exception e) {
            String why = "PostgreSQL part: skipped: could not start PostgreSQL (" + rootMessage(e) + ")";
            log.println(why);
            tables.forEach(t -> results.note(t, why));
            return;
        }
        try (pg) {
            log.println("PostgreSQL: " + pg.description());
            results.env("postgres", pg.description());
            results.env("postgres settings", pg.settings().toString().replaceAll("[{}]", "")
                    + (opts.pgSettings().isEmpty() ? " (PostgreSQL's defaults; max_connections from EmbeddedPostgres)"
                    : " (NOT the defaults: --pg-setting " + opts.pgSettings() + ")"));
            List<String> selected = new ArrayList<>(library);
            if (churn) {
                selected.add("CHURN");
            }
            if (opts.uses("delayq") && budget.allows("delayq (PostgreSQL)", prefixed(selected))) {
                if (!library.isEmpty()) {
                    runLibrary(opts, new Workloads(new PostgresBackend(pg), sizes, results, log), new DelayqImpl(),
                            results, log, "PG-", "PG-SIZE");
                    checkpoint(results, sizes, opts, started);
                }
                if (churn) {
                    log.printf("== delayq churn on PostgreSQL (%d jobs/s for %d s, finished-job retention %d s)%n",
                            sizes.churnRate(), sizes.churnSeconds(), ChurnWorkload.RETENTION_S);
                    try {
                        new ChurnWorkload(pg, sizes, results, log).run();
                    } catch (Exception e) {
                        results.note("PG-CHURN", "delayq: failed (" + rootMessage(e) + ")");
                        log.println("  PG-CHURN delayq failed: " + rootMessage(e));
                    }
                    checkpoint(results, sizes, opts, started);
                }
            }
            for (PgNodePeer peer : PgNodePeer.all()) {
                if (!opts.uses(peer.name())) {
                    continue;
                }
                for (PgNodePeer.Variant v : peer.variants()) {
                    List<String> its = PgNodePeer.workloads(v, selected);
                    if (!its.isEmpty() && budget.allows(v.label(), prefixed(its))) {
                        peer.run(v, selected, pg, sizes, results, log);
                        checkpoint(results, sizes, opts, started);
                    }
                }
            }
            if (w4 && opts.uses("delayq") && budget.allows("delayq-service (PostgreSQL)", List.of("PG-W4"))) {
                new ServiceWorkloads(new PostgresBackend(pg), sizes.withReps(opts.serviceReps()), results, log,
                        opts.serviceJar()).run(true, false);
                checkpoint(results, sizes, opts, started);
            }
            if (noisy && budget.allows("noisy neighbour (PostgreSQL)", List.of("PG-" + NoisyNeighbour.TABLE))) {
                new NoisyNeighbour(new PostgresBackend(pg), sizes.withReps(opts.serviceReps()), results, log,
                        opts.serviceJar()).run();
                checkpoint(results, sizes, opts, started);
            }
            if (rate && budget.allows("rate-limit precision (PostgreSQL)", List.of("PG-" + RatePrecision.TABLE))) {
                new RatePrecision(new PostgresBackend(pg), sizes.withReps(opts.serviceReps()), results, log,
                        opts.serviceJar()).run();
                checkpoint(results, sizes, opts, started);
            }
        }
    }

    private static List<String> library(BenchOptions opts) {
        List<String> library = new ArrayList<>();
        for (String w : List.of("W1", "W2", "W3")) {
            if (opts.runs(w)) {
                library.add(w);
            }
        }
        return library;
    }

    private static List<String> prefixed(List<String> workloads) {
        return workloads.stream().map(w -> "PG-" + w).toList();
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

    private static void runLibrary(BenchOptions opts, Workloads workloads, Impl impl, Results results, PrintStream log,
                                   String prefix, String memoryTable) {
        log.println("== " + impl.label() + (prefix.isEmpty() ? "" : " on PostgreSQL") + " (" + impl.semantics() + ")");
        try {
            workloads.warmUp(impl);
        } catch (Throwable e) {
            String why = impl.label() + ": skipped: could not run (" + rootMessage(e) + ")";
            log.println("  " + why);
            for (String t : List.of("W1", "W2", "W3")) {
                if (opts.runs(t)) {
                    results.note(prefix + t, why);
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
                    log.println("  " + prefix + w + " " + why);
                    results.note(prefix + w, why);
                }
            }
        }
        if (opts.runs("W1")) {
            for (Results.Run r : results.runs(prefix + "W1")) {
                if (r.impl().equals(impl.label())) {
                    results.add(new Results.Run(memoryTable, r.impl(), r.rep(), r.metrics(), java.util.Map.of()));
                }
            }
        }
        if (!prefix.isEmpty()) {
            workloads.clear(); // drops the last run's database (Redis is flushed by the next run's reset, as always)
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
