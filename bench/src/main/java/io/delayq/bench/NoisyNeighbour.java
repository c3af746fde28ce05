package io.delayq.bench;

import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.ServiceProcess;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The noisy neighbour (BENCHMARK.md, "Noisy neighbour (tenants)"): two tenants on one service. Tenant A (topics
 * {@code nn-a.*}) has a burst of {@link Sizes#noisyJobs()} jobs due at one instant to its receiver, in one topic, then
 * spread over {@value #SPREAD} topics; tenant B (topics {@code nn-b.*}) has {@value #B_PER_SECOND} jobs/s due to
 * another receiver, from a second before the instant until well after A's drain. Each repetition also runs B alone
 * (the same jobs, no burst), so B's lateness with A's burst sits beside B's lateness without it, in the same run.
 *
 * <p>Both tenants weigh 1, declared in the service's {@code tenants:} block. Every job is scheduled ahead through
 * the batch endpoint with an absolute {@code runAt} (ms), so the instant is exact. Rows: B's lateness (receipt − runAt,
 * over B's jobs due from the instant until A's last job arrived; for B alone over the same span), A's drain (jobs /
 * (last job − instant)) and its last job's lateness, lost jobs of each.
 */
final class NoisyNeighbour {
    static final String TABLE = "NOISY";
    static final String ALONE = "B alone";
    static final String ONE_TOPIC = "A's burst in 1 topic";
    static final int SPREAD = 30;
    static final String SPREAD_LABEL = "A's burst over " + SPREAD + " topics";
    static final int B_PER_SECOND = 20;
    private static final String TENANTS = """
            tenants:
              - name: team-a
                topics: ["nn-a.*"]
                weight: 1
              - name: team-b
                topics: ["nn-b.*"]
                weight: 1
            """;
    private static final long B_LEAD_MS = 1_000;

    private final Backend backend;
    private final String prefix;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;
    private final Path serviceJar;
    private final Map<Thread, KeepAliveHttp> connections = new ConcurrentHashMap<>();
    /** A's enqueue rate through the batch endpoint, measured in the warm-up: how far ahead the instant must be. */
    private double enqueuePerSecond = 4_000;

    NoisyNeighbour(Backend backend, Sizes sizes, Results results, PrintStream log, Path serviceJar) {
        this.backend = backend;
        this.prefix = backend.tablePrefix();
        this.sizes = sizes;
        this.results = results;
        this.log = log;
        this.serviceJar = serviceJar;
    }

    void run() {
        String table = prefix + TABLE;
        String why = ServiceWorkloads.skipReason(backend, serviceJar);
        if (why != null) {
            results.note(table, why);
            log.println("  " + table + " " + why);
            return;
        }
        log.printf("== %s noisy neighbour: A %,d jobs at one instant, B %d jobs/s (%s)%n", prefix, sizes.noisyJobs(),
                B_PER_SECOND, serviceJar.getFileName());
        for (int rep = 1; rep <= sizes.reps(); rep++) {
            String busy = Machine.settle(120);
            if (busy != null) {
                results.note(table, "rep " + rep + ": " + busy);
            }
            try (CallbackReceiver a = BenchServices.callbacks(id -> { });
                 CallbackReceiver b = BenchServices.callbacks(id -> { });
                 ServiceProcess service = BenchServices.service(serviceJar,
                         backend.serviceStoreYaml(backend.fresh(ServiceWorkloads.LABEL)), TENANTS)) {
                service.start();
                warmUp(service, a, b);
                for (String row : List.of(ALONE, ONE_TOPIC, SPREAD_LABEL)) {
                    int topics = row.equals(ALONE) ? 0 : row.equals(ONE_TOPIC) ? 1 : SPREAD;
                    Map<String, Double> m = round(service, a, b, topics, sizes.noisyJobs());
                    results.add(new Results.Run(table, row, rep, m, Map.of()));
                    log.printf("  %s rep %d %-26s B p50 %.0f p99 %.0f max %.0f ms (%.0f jobs); A drain %,.0f jobs/s,"
                                    + " last %.0f ms late; lost A %.0f B %.0f%n", table, rep, row, m.get("b_p50"),
                            m.get("b_p99"), m.get("b_max"), m.get("b_jobs"), m.get("a_jobs_per_s"),
                            m.get("a_last_late_ms"), m.get("a_lost"), m.get("b_lost"));
                }
            } catch (Exception e) {
                results.note(table, "rep " + rep + ": failed (" + BenchMain.rootMessage(e) + ")");
                log.println("  " + table + " rep " + rep + " failed: " + e);
            } finally {
                closeConnections();
            }
        }
        backend.clear();
    }

    /** Untimed rounds of the same, for at least the service warm-up time (one round at least). */
    private void warmUp(ServiceProcess service, CallbackReceiver a, CallbackReceiver b) throws Exception {
        long t0 = System.currentTimeMillis();
        int rounds = 0;
        do {
            round(service, a, b, SPREAD, Math.min(sizes.noisyJobs(), 20_000));
            rounds++;
        } while (System.currentTimeMillis() - t0 < sizes.serviceWarmupMs());
        log.printf("  warm-up: %d round(s) in %.1f s (untimed); A enqueued at %,.0f jobs/s%n", rounds,
                (System.currentTimeMillis() - t0) / 1000.0, enqueuePerSecond);
    }

    /**
     * One round: A's {@code aJobs} jobs over {@code topics} topics due at one instant (none when 0), B's steady jobs
     * around it; waits for all of them.
     */
    private Map<String, Double> round(ServiceProcess service, CallbackReceiver a, CallbackReceiver b, int topics,
                                      int aJobs) throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        int n = topics == 0 ? 0 : aJobs;
        long now = System.currentTimeMillis();
        // far enough ahead that A's enqueue is done first, at half the rate the warm-up saw
        long instant = now + 2_000 + (long) (n / Math.max(500, enqueuePerSecond / 2) * 1000);
        long spanMs = B_LEAD_MS + Math.max(sizes.name().equals("tiny") ? 2_000 : 5_000, (long) (aJobs / 5_000.0 * 1000));
        int bJobs = (int) (spanMs * B_PER_SECOND / 1000);
        Receipts bReceipts = new Receipts(bJobs);
        Receipts aReceipts = new Receipts(n);
        a.handTo(BenchServices.ids(aReceipts));
        b.handTo(BenchServices.ids(bReceipts));
        for (int i = 0; i < bJobs; i++) {
            bReceipts.due[i] = instant - B_LEAD_MS + i * 1000L / B_PER_SECOND;
        }
        java.util.Arrays.fill(aReceipts.due, instant);
        batches(service, "nn-b." + run, 0, bJobs, i -> bReceipts.due[i], b.url("/cb"));
        long t0 = System.nanoTime();
        Workloads.produce(n, (from, to) -> {
            for (int topic = 0; topic < topics; topic++) {
                // each producer's slice, split over the topics
                int f = from + (int) ((long) (to - from) * topic / topics);
                int t = from + (int) ((long) (to - from) * (topic + 1) / topics);
                batches(service, "nn-a." + run + "." + topic, f, t, i -> instant, a.url("/cb"));
            }
        });
        long enqueuedAt = System.currentTimeMillis();
        if (n > 0) {
            enqueuePerSecond = n / Math.max(0.001, (System.nanoTime() - t0) / 1e9);
        }
        long lastDue = bReceipts.due[bJobs - 1];
        aReceipts.awaitAll(Math.max(instant, enqueuedAt) + sizes.lostAfterMs() + n / 2 - System.currentTimeMillis());
        bReceipts.awaitAll(Math.max(lastDue, aReceipts.lastAt()) + sizes.lostAfterMs() - System.currentTimeMillis());
        Thread.sleep(sizes.dupGraceMs());

        long drainEnd = n == 0 ? instant + spanMs - B_LEAD_MS : Math.max(aReceipts.lastAt(), instant + 1);
        List<Long> during = new ArrayList<>();
        for (int i = 0; i < bJobs; i++) {
            long late = bReceipts.latenessOf(i);
            if (bReceipts.due[i] >= instant && bReceipts.due[i] <= drainEnd && late != Long.MIN_VALUE) {
                during.add(late);
            }
        }
        long[] sorted = during.stream().mapToLong(Long::longValue).sorted().toArray();
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("b_jobs", (double) sorted.length);
        m.put("b_p50", Stats.percentile(sorted, 0.50));
        m.put("b_p99", Stats.percentile(sorted, 0.99));
        m.put("b_max", sorted.length == 0 ? Double.NaN : (double) sorted[sorted.length - 1]);
        m.put("b_lost", (double) bReceipts.lost());
        m.put("b_duplicated", (double) bReceipts.duplicated());
        m.put("a_jobs", (double) n);
        m.put("a_jobs_per_s", n == 0 ? Double.NaN : aReceipts.distinct() / Math.max(0.001, (drainEnd - instant) / 1000.0));
        m.put("a_last_late_ms", n == 0 ? Double.NaN : (double) (aReceipts.lastAt() - instant));
        m.put("a_lost", (double) aReceipts.lost());
        m.put("a_duplicated", (double) aReceipts.duplicated());
        m.put("enqueued_before_instant_ms", (double) (instant - enqueuedAt));
        return m;
    }

    /** POSTs jobs {@code from..to} to the topic's batch endpoint, 500 a request, each with its absolute runAt. */
    private void batches(ServiceProcess service, String topic, int from, int to, java.util.function.IntToLongFunction due,
                         String callbackUrl) throws Exception {
        for (int s = from; s < to; s += 500) {
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int id = s; id < Math.min(to, s + 500); id++) {
                body.append(id == s ? "" : ",").append(ServiceWorkloads.jobJson(id,
                        "\"runAt\":\"" + Instant.ofEpochMilli(due.applyAsLong(id)) + "\"", callbackUrl, null));
            }
            KeepAliveHttp http = connections.computeIfAbsent(Thread.currentThread(),
                    t -> new KeepAliveHttp("127.0.0.1", service.port(), BenchServices.TOKEN));
            KeepAliveHttp.Response r = http.send("POST", "/v1/topics/" + topic + "/jobs/batch", body.append("]}").toString());
            if (r.status() != 200) {
                throw new IllegalStateException("POST /v1/topics/" + topic + "/jobs/batch answered " + r.status() + ": "
                        + r.body() + " (service log: " + service.log() + ")");
            }
        }
    }

    private void closeConnections() {
        connections.values().forEach(KeepAliveHttp::close);
        connections.clear();
    }
}
