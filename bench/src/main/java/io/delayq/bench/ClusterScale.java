package io.delayq.bench;

import io.delayq.bench.adapters.DelayqImpl;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster scaling part ({@code --store cluster}): delayq's W1 bulk, W3 and W4 on the standalone bench Redis and on
 * Redis Clusters of 1, 2 and 3 masters that the bench forms itself ({@link BenchCluster}), then W1 bulk and W4 on 3
 * masters with a replica each at {@code minReplicas} 0 and 1. One configuration at a time (its servers stopped before
 * the next starts), every topic with {@link #PARTITIONS} partitions everywhere, standalone included, so that the rows
 * differ only in where the partitions live. Rows go to the SCALE-W1 / SCALE-W3 / SCALE-W4 tables; the ratios between
 * rows (medians) to the SCALE table.
 */
final class ClusterScale {
    /** A multiple of 1, 2 and 3: every master of every configuration holds the same share of a topic. */
    static final int PARTITIONS = 6;
    static final String STANDALONE = "standalone";
    private static final String RATIOS = ScaleBackend.PREFIX.substring(0, ScaleBackend.PREFIX.length() - 1);

    private final BenchOptions opts;
    private final Results results;
    private final PrintStream log;

    ClusterScale(BenchOptions opts, Results results, PrintStream log) {
        this.opts = opts;
        this.results = results;
        this.log = log;
    }

    void run() {
        log.println("== cluster scaling (delayq; " + PARTITIONS + " partitions per topic everywhere)");
        measure(STANDALONE, 0, 0, List.of(0));
        for (int masters = 1; masters <= 3; masters++) {
            measure("cluster", masters, 0, List.of(0));
        }
        measure("cluster", 3, 1, List.of(0, 1));
        ratios();
    }

    /** Starts one configuration, runs its workloads at each minReplicas, stops it. */
    private void measure(String kind, int masters, int replicasPerMaster, List<Integer> minReplicas) {
        boolean replicated = replicasPerMaster > 0;
        String what = kind.equals(STANDALONE) ? STANDALONE : "cluster of " + masters + " master(s)"
                + (replicated ? " with " + replicasPerMaster + " replica(s) each" : "");
        try (AutoCloseable servers = kind.equals(STANDALONE) ? BenchRedis.start(opts.preferPathRedis())
                : BenchCluster.start(opts.preferPathRedis(), masters, replicasPerMaster)) {
            if (servers instanceof BenchRedis r) {
                results.env("scale: redis", r.description());
            }
            for (int n : minReplicas) {
                ScaleBackend backend = servers instanceof BenchCluster c ? ScaleBackend.cluster(c, PARTITIONS, n)
                        : ScaleBackend.standalone((BenchRedis) servers, PARTITIONS);
                // the cost of minReplicas is measured where it is paid: on writes (W1 bulk) and through the service (W4)
                runWorkloads(backend, !replicated);
            }
        } catch (Exception e) {
            String why = what + ": failed (" + BenchMain.rootMessage(e) + ")";
            log.println("  " + why);
            for (String t : List.of("W1", "W3", "W4")) {
                results.note(ScaleBackend.PREFIX + t, why);
            }
        }
    }

    private void runWorkloads(ScaleBackend backend, boolean drain) throws Exception {
        String label = backend.label();
        log.println("  -- " + label);
        Sizes sizes = opts.sizes();
        Workloads workloads = new Workloads(backend, sizes, results, log);
        Impl impl = DelayqImpl.connectingWith(label, backend::connect);
        if (opts.runs("W1") || opts.runs("W3")) {
            workloads.warmUp(impl);
        }
        for (int rep = 1; rep <= sizes.reps(); rep++) {
            if (opts.runs("W1")) {
                workloads.w1Bulk(impl, rep);
            }
            if (drain && opts.runs("W3")) {
                workloads.w3(impl, rep);
            }
        }
        workloads.clear();
        if (opts.runs("W4")) {
            new ServiceWorkloads(backend, sizes.withReps(opts.serviceReps()), results, log, opts.serviceJar())
                    .w4Rows(label);
        }
    }

    /** The SCALE table: each comparison's medians divided, per workload figure. */
    private void ratios() {
        String one = "cluster, 1 master";
        ratio("2 masters ÷ 1 master", "cluster, 2 masters", one);
        ratio("3 masters ÷ 1 master", "cluster, 3 masters", one);
        ratio("cluster of 1 master ÷ standalone", one, STANDALONE);
        ratio("minReplicas 1 ÷ minReplicas 0 (3 masters + 1 replica each)",
                "cluster, 3 masters + 1 replica each, minReplicas 1", "cluster, 3 masters + 1 replica each, minReplicas 0");
    }

    private void ratio(String row, String numerator, String denominator) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String[] figure : new String[][]{{"W1", "bulk_jobs_per_s"}, {"W3", "drain_jobs_per_s"},
                {"W4", "enqueue_req_per_s"}, {"W4", "delivered_jobs_per_s"}}) {
            String table = ScaleBackend.PREFIX + figure[0];
            double n = Stats.Summary.of(results.values(table, numerator, figure[1])).median();
            double d = Stats.Summary.of(results.values(table, denominator, figure[1])).median();
            if (!Double.isNaN(n) && !Double.isNaN(d) && d > 0) {
                m.put(figure[0] + "_" + figure[1], n / d);
            }
        }
        if (!m.isEmpty()) {
            results.add(new Results.Run(RATIOS, row, 1, m, Map.of()));
            log.printf("  %s: %s%n", row, m);
        }
    }
}
