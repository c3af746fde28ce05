package io.delayq.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command line of the benchmark.
 *
 * <table>
 *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code --quick}</td><td>off</td><td>small sizes, 1 repetition, the whole run in under two minutes</td></tr>
 *   <tr><td>{@code --tiny}</td><td>off</td><td>smaller still (the test suite's size)</td></tr>
 *   <tr><td>{@code --store redis|postgres|both|cluster}</td><td>both</td><td>which part: the Redis part (W1–W6, CEILING on Redis,
 *       as before), the PostgreSQL part (W1–W4 and CHURN on PostgreSQL), or both (Redis first, W5 last); or, on its own,
 *       the cluster scaling part (delayq's W1 bulk, W3, W4 on standalone and on Redis Clusters of 1, 2, 3 masters the
 *       bench forms, and minReplicas 0 vs 1 with a replica per master)</td></tr>
 *   <tr><td>{@code --only W1,W2,…}</td><td>all</td><td>workloads: W1 W2 W3 W4 W5 W6 CEILING CHURN NOISY RATE (each in the parts that
 *       have it; NOISY is the noisy neighbour of two tenants, RATE the rate-limit precision, both on both stores)</td></tr>
 *   <tr><td>{@code --impl a,b}</td><td>all</td><td>implementations: delayq redisson naive bullmq graphile-worker pg-boss
 *       (ceiling rows follow {@code --only})</td></tr>
 *   <tr><td>{@code --out DIR}</td><td>{@code ./bench-results}</td><td>where results.md, results.json and the PNGs go</td></tr>
 *   <tr><td>{@code --reps N}</td><td>3 full, 1 quick</td><td>repetitions per workload</td></tr>
 *   <tr><td>{@code --w5 1000000,8000000,10000000}</td><td>per mode</td><td>W5 pending-job sizes, ascending (one topic filled on from each to the next)</td></tr>
 *   <tr><td>{@code --bundled-redis}</td><td>off</td><td>use the redis-server bundled in embedded-redis even when one is on the PATH</td></tr>
 *   <tr><td>{@code --service-reps N}</td><td>as {@code --reps}</td><td>repetitions of W4 and W6 (each starts the service)</td></tr>
 *   <tr><td>{@code --budget-min N}</td><td>none</td><td>start nothing new after N minutes (skipped parts say so)</td></tr>
 *   <tr><td>{@code --service-jar PATH}</td><td>{@code service/target/delayq-service-0.1.0-SNAPSHOT.jar}</td><td>the service for W4/W6</td></tr>
 *   <tr><td>{@code --churn-s N}</td><td>600 full, 30 quick</td><td>how long the PostgreSQL churn enqueues (500 jobs/s)</td></tr>
 *   <tr><td>{@code --pg-setting name=value}</td><td>none</td><td>diagnostics only: a PostgreSQL server setting other than
 *       its default (repeatable; the report's environment shows the settings the server ran with)</td></tr>
 * </table>
 */
public record BenchOptions(Sizes sizes, Set<String> workloads, Set<String> impls, Path out, boolean preferPathRedis,
                           Path serviceJar, int serviceReps, Integer budgetMinutes, String store,
                           Map<String, String> pgSettings) {

    public static final List<String> ALL_WORKLOADS = List.of("W1", "W2", "W3", "W5", "CEILING", "W4", "W6", "CHURN",
            "NOISY", "RATE");
    public static final List<String> ALL_IMPLS = List.of("delayq", "redisson", "naive", "bullmq", "graphile-worker", "pg-boss");
    public static final List<String> STORES = List.of("redis", "postgres", "both", "cluster");

    public static BenchOptions parse(String... args) {
        Sizes sizes = Sizes.full();
        Set<String> workloads = new LinkedHashSet<>(ALL_WORKLOADS);
        Set<String> impls = new LinkedHashSet<>(ALL_IMPLS);
        Path out = Path.of("bench-results");
        Integer reps = null;
        List<Integer> w5 = null;
        boolean preferPath = true;
        Path serviceJar = null;
        Integer serviceReps = null;
        Integer budget = null;
        String store = "both";
        Long churnSeconds = null;
        Map<String, String> pgSettings = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> sizes = Sizes.quick();
                case "--tiny" -> sizes = Sizes.tiny();
                case "--only" -> workloads = upper(list(args, ++i, a));
                case "--impl" -> impls = new LinkedHashSet<>(list(args, ++i, a));
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--reps" -> reps = Integer.parseInt(value(args, ++i, a));
                case "--w5" -> {
                    w5 = new ArrayList<>();
                    for (String s : list(args, ++i, a)) {
                        w5.add(Integer.parseInt(s.replace("_", "")));
                    }
                    w5 = w5.stream().distinct().sorted().toList(); // filled on from one size to the next
                }
                case "--bundled-redis" -> preferPath = false;
                case "--service-jar" -> serviceJar = Path.of(value(args, ++i, a));
                case "--service-reps" -> serviceReps = Integer.parseInt(value(args, ++i, a));
                case "--budget-min" -> budget = Integer.parseInt(value(args, ++i, a));
                case "--store" -> store = value(args, ++i, a).toLowerCase();
                case "--churn-s" -> churnSeconds = Long.parseLong(value(args, ++i, a));
                case "--pg-setting" -> {
                    String kv = value(args, ++i, a);
                    int eq = kv.indexOf('=');
                    if (eq < 1) {
                        throw new IllegalArgumentException("--pg-setting needs name=value, not '" + kv + "'");
                    }
                    pgSettings.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
                }
                case "-h", "--help" -> throw new IllegalArgumentException(usage());
                default -> throw new IllegalArgumentException("unknown option '" + a + "'\n" + usage());
            }
        }
        for (String w : workloads) {
            if (!ALL_WORKLOADS.contains(w)) {
                throw new IllegalArgumentException("unknown workload '" + w + "'; choose from " + ALL_WORKLOADS);
            }
        }
        for (String im : impls) {
            if (!ALL_IMPLS.contains(im)) {
                throw new IllegalArgumentException("unknown implementation '" + im + "'; choose from " + ALL_IMPLS);
            }
        }
        if (!STORES.contains(store)) {
            throw new IllegalArgumentException("unknown store '" + store + "'; choose from " + STORES);
        }
        if (reps != null) {
            sizes = sizes.withReps(reps);
        }
        if (churnSeconds != null) {
            sizes = sizes.withChurnSeconds(churnSeconds);
        }
        if (w5 != null) {
            sizes = sizes.withW5Sizes(w5);
        }
        if (serviceJar == null) {
            serviceJar = defaultServiceJar();
        }
        return new BenchOptions(sizes, workloads, impls, out, preferPath, serviceJar,
                serviceReps == null ? sizes.reps() : serviceReps, budget, store, Map.copyOf(pgSettings));
    }

    /** Whether the Redis part runs (W1–W6 and CEILING on the bench Redis). */
    public boolean redisPart() {
        return store.equals("redis") || store.equals("both");
    }

    /** Whether the PostgreSQL part runs (W1–W4 and CHURN on the bench PostgreSQL). */
    public boolean postgresPart() {
        return store.equals("postgres") || store.equals("both");
    }

    /** Whether the cluster scaling part runs (only when asked for: it starts up to 6 servers per configuration). */
    public boolean clusterPart() {
        return store.equals("cluster");
    }

    static Path defaultServiceJar() {
        for (Path p : List.of(Path.of("service/target/delayq-service-0.1.0-SNAPSHOT.jar"),
                Path.of("../service/target/delayq-service-0.1.0-SNAPSHOT.jar"))) {
            if (p.toFile().isFile()) {
                return p.toAbsolutePath().normalize();
            }
        }
        return Path.of("service/target/delayq-service-0.1.0-SNAPSHOT.jar").toAbsolutePath();
    }

    public boolean runs(String workload) {
        return workloads.contains(workload);
    }

    public boolean uses(String impl) {
        return impls.contains(impl);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value\n" + usage());
        }
        return args[i];
    }

    private static List<String> list(String[] args, int i, String option) {
        List<String> out = new ArrayList<>();
        for (String s : value(args, i, option).split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    private static Set<String> upper(List<String> in) {
        Set<String> out = new LinkedHashSet<>();
        in.forEach(s -> out.add(s.toUpperCase()));
        return out;
    }

    public static String usage() {
        return """
                usage: java -jar delayq-bench.jar [--quick | --tiny] [--store redis|postgres|both|cluster]
                                                  [--only W1,W2,W3,W4,W5,W6,CEILING,CHURN,NOISY,RATE]
                                                  [--impl delayq,redisson,naive,bullmq,graphile-worker,pg-boss] [--out DIR] [--reps N]
                                                  [--w5 1000000,8000000,10000000] [--bundled-redis] [--service-jar PATH] [--service-reps N]
                                                  [--budget-min N] [--churn-s N] [--pg-setting name=value]
                  full mode (no --quick) runs BENCHMARK.md's sizes with 3 repetitions (Redis part ~20 minutes on 2 cores;
                  the PostgreSQL part adds about an hour, half of it the 10-minute churns: --churn-s shortens them;
                  --store cluster: delayq's W1 bulk, W3, W4 on standalone and on Redis Clusters of 1, 2, 3 masters).""";
    }
}
