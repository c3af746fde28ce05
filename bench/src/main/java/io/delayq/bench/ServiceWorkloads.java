package io.delayq.bench;

import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.ServiceProcess;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W4 and W6: delayq through the service itself. The service jar runs as a child process on the bench Redis, or on
 * the bench PostgreSQL (its tables then are PG-W4 / PG-W6); 8 producers POST jobs to the REST API with a callback to a local HTTP receiver that answers 200.
 *
 * <ul>
 *   <li>W4 precision: jobs due over a span, single POSTs; enqueue req/s, lateness (receipt − producer's clock before
 *       the POST − delay), lost, duplicated, Redis cost. W4 throughput: as many jobs again into a paused topic through
 *       the batch endpoint, then resumed; delivered jobs/s = jobs / (last − first callback).</li>
 *   <li>W6: W2-like through the service (batch POSTs, 3 s attempt timeout) while the service is {@code kill -9}ed at
 *       the middle of the due span and started again; lost (must be 0), duplicated, recovery time (kill → first
 *       callback after the restart).</li>
 * </ul>
 *
 * <p>Over 500 lines as one class: W4 and W6 share the service process, the receiver, the store's back-end and the
 * bookkeeping of a round, and each is read beside the other when their figures are compared.
 */
public final class ServiceWorkloads {
    static final String LABEL = "delayq-service";
    /** W4 again with the operators' dashboard open: {@link DashboardLoad#TABS} tabs refreshing every 2 s. */
    static final String DASHBOARD_LABEL = LABEL + ", dashboard open (" + DashboardLoad.TABS + " tabs)";
    private final Backend backend;
    private final String prefix;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;
    private final Path serviceJar;
    /** One keep-alive connection per producer thread, all closed when a service process is closed. */
    private final Map<Thread, KeepAliveHttp> connections = new ConcurrentHashMap<>();
    /** W4's delivered jobs/s per repetition, without and with the dashboard open. */
    private final Map<String, List<Double>> delivered = Map.of(LABEL, new ArrayList<>(), DASHBOARD_LABEL,
            new ArrayList<>());
    /** The same for W4's single enqueues, req/s. */
    private final Map<String, List<Double>> enqueued = Map.of(LABEL, new ArrayList<>(), DASHBOARD_LABEL,
            new ArrayList<>());
    /** What W4's single POSTs cost at the least: a minimal Dropwizard endpoint doing one Redis SET (CeilingApp). */
    static final String CEILING_LABEL = "ceiling: Dropwizard endpoint, Jackson record, one Jedis SET";
    /** The POST-only pass's jobs are due this much later than W4's: nothing of them is delivered during the run. */
    static final long POST_ONLY_LATER_MS = 3_600_000;
    /** The POST-only pass's req/s per repetition (W4 without the dashboard). */
    private final List<Double> postsOnly = new ArrayList<>();
    /** The ceiling's req/s per repetition (Redis part only: it needs the bench Redis). */
    private final List<Double> ceilings = new ArrayList<>();

    public ServiceWorkloads(Backend backend, Sizes sizes, Results results, PrintStream log, Path serviceJar) {
        this.backend = backend;
        this.prefix = backend.tablePrefix();
        this.sizes = sizes;
        this.results = results;
        this.log = log;
        this.serviceJar = serviceJar;
    }

    /** Why the service cannot run here (no jar, or one without the backend's store), or {@code null}. */
    private String skipReason() {
        return skipReason(backend, serviceJar);
    }

    /** Why the service cannot run on {@code backend} (no jar, or one without the backend's store), or {@code null}. */
    static String skipReason(Backend backend, Path serviceJar) {
        if (!Files.isRegularFile(serviceJar) || !hasApplication(serviceJar)) {
            return "skipped: service jar not found (" + serviceJar + "; build it with ./mvnw -q -DskipTests package)";
        } else if (backend instanceof PostgresBackend
                && !hasClass(serviceJar, "io/delayq/postgres/PostgresJobStoreFactory.class")) {
            return "skipped: the service jar has no PostgreSQL store (io.delayq.postgres.PostgresJobStoreFactory); "
                    + "rebuild it with ./mvnw -q -DskipTests package";
        }
        return null;
    }

    /**
     * W4 as is (no dashboard variant), its rows labelled {@code label}: the cluster scaling part's one row per
     * configuration, in the backend's W4 table. A missing service jar is a note in that table.
     */
    public void w4Rows(String label) {
        String why = skipReason();
        if (why != null) {
            results.note(prefix + "W4", label + ": " + why);
            log.println("  " + prefix + "W4 " + label + ": " + why);
            return;
        }
        for (int rep = 1; rep <= sizes.reps(); rep++) {
            try {
                w4(label, rep, false);
            } catch (Exception e) {
                results.note(prefix + "W4", label + " rep " + rep + ": failed (" + e + ")");
                log.println("  " + prefix + "W4 " + label + " rep " + rep + " failed: " + e);
            } finally {
                closeConnections();
            }
        }
        backend.clear();
    }

    public void run(boolean w4, boolean w6) {
        String why = skipReason();
        if (why != null) {
            if (w4) {
                results.note(prefix + "W4", LABEL + ": " + why);
            }
            if (w6) {
                results.note(prefix + "W6", LABEL + ": " + why);
            }
            log.println(prefix + "W4/" + prefix + "W6 " + why);
            return;
        }
        if (w4) {
            log.println("== " + prefix + "W4 end to end over HTTP (" + serviceJar.getFileName() + ")");
            for (int rep = 1; rep <= sizes.reps(); rep++) {
                String busy = Machine.settle(120);
                if (busy != null) {
                    results.note(prefix + "W4", LABEL + " rep " + rep + ": " + busy);
                    log.println("  " + prefix + "W4 rep " + rep + ": " + busy);
                }
                // The ceiling is timed before and after the service's runs and their mean is the row's ceiling, so
                // that the machine's drift over the repetition weighs on both sides alike.
                Ceiling ceiling = null;
                if (backend instanceof RedisBackend) {
                    try {
                        ceiling = new Ceiling(rep);
                        ceiling.timedPass();
                    } catch (Exception e) {
                        ceilingFailed(rep, e, ceiling);
                        ceiling = null;
                    } finally {
                        closeConnections();
                    }
                }
                // Both ways in each repetition, one after the other: without and with dashboard tabs refreshing
                // (so drift of the machine over the run hits both alike).
                Map<String, Map<String, Double>> rows = new LinkedHashMap<>();
                for (boolean dashboard : new boolean[] {false, true}) {
                    String label = dashboard ? DASHBOARD_LABEL : LABEL;
                    try {
                        rows.put(label, w4(label, rep, dashboard));
                    } catch (Exception e) {
                        results.note(prefix + "W4", label + " rep " + rep + ": failed (" + e + ")");
                        log.println("  " + prefix + "W4 " + label + " rep " + rep + " failed: " + e);
                    } finally {
                        closeConnections();
                    }
                }
                if (ceiling != null) {
                    try {
                        ceiling.timedPass();
                        ceiling.close();
                        double reqPerSecond = ceiling.mean();
                        ceilings.add(reqPerSecond);
                        int r = rep;
                        rows.forEach((label, m) -> {
                            m.put("ceiling_req_per_s", reqPerSecond);
                            m.put("enqueue_of_ceiling", m.get("enqueue_req_per_s") / reqPerSecond);
                            if (m.containsKey("post_only_req_per_s")) {
                                m.put("post_only_of_ceiling", m.get("post_only_req_per_s") / reqPerSecond);
                            }
                            log.printf("  %sW4 %s rep %d: enqueue = %.2f× the ceiling's %,.0f req/s%n", prefix, label,
                                    r, m.get("enqueue_of_ceiling"), reqPerSecond);
                        });
                    } catch (Exception e) {
                        ceilingFailed(rep, e, ceiling);
                    } finally {
                        closeConnections();
                    }
                }
            }
        }
        if (w4 && !delivered.get(LABEL).isEmpty() && !delivered.get(DASHBOARD_LABEL).isEmpty()) {
            double without = Stats.Summary.of(delivered.get(LABEL)).median();
            double with = Stats.Summary.of(delivered.get(DASHBOARD_LABEL)).median();
            double enqWithout = Stats.Summary.of(enqueued.get(LABEL)).median();
            double enqWith = Stats.Summary.of(enqueued.get(DASHBOARD_LABEL)).median();
            String line = String.format("With the dashboard open (%d tabs) delivery ran at %,.0f jobs/s against %,.0f"
                    + " without: %.2f× (target: lose less than 5 %%, ≥ 0.95×); single enqueues %,.0f req/s against"
                    + " %,.0f: %.2f×", DashboardLoad.TABS, with, without, with / without, enqWith, enqWithout,
                    enqWith / enqWithout);
            results.note(prefix + "W4", line);
            log.println("  " + line);
        }
        if (w4 && !ceilings.isEmpty() && !enqueued.get(LABEL).isEmpty()) {
            double ceiling = Stats.Summary.of(ceilings).median();
            double enq = Stats.Summary.of(enqueued.get(LABEL)).median();
            double alone = postsOnly.isEmpty() ? Double.NaN : Stats.Summary.of(postsOnly).median();
            String line = String.format("Single-job POST against the HTTP enqueue ceiling (%s, same repetitions, "
                    + "%,.0f req/s): alone, as the ceiling runs (nothing due during the pass), %,.0f req/s = %.2f× "
                    + "(target ≥ 0.70×); during W4, with the service delivering beside it, %,.0f req/s = %.2f×",
                    CEILING_LABEL, ceiling, alone, alone / ceiling, enq, enq / ceiling);
            results.note(prefix + "W4", line);
            log.println("  " + line);
        }
        if (w6) {
            log.println("== " + prefix + "W6 kill -9 of the service mid-run");
            for (int rep = 1; rep <= sizes.reps(); rep++) {
                try {
                    w6(rep);
                } catch (Exception e) {
                    results.note(prefix + "W6", LABEL + " rep " + rep + ": failed (" + e + ")");
                    log.println("  " + prefix + "W6 rep " + rep + " failed: " + e);
                } finally {
                    closeConnections();
                }
            }
        }
        backend.clear();
    }

    /** Whether the jar, or for a thin jar one of the jars its manifest's {@code Class-Path} names, holds {@code entry}. */
    static boolean hasClass(Path jar, String entry) {
        try (var zip = new java.util.jar.JarFile(jar.toFile())) {
            if (zip.getEntry(entry) != null) {
                return true;
            }
            var mf = zip.getManifest();
            String cp = mf == null ? null : mf.getMainAttributes().getValue("Class-Path");
            if (cp != null) {
                for (String part : cp.trim().split("\\s+")) {
                    Path p = jar.toAbsolutePath().getParent().resolve(java.net.URI.create(part).getPath());
                    if (part.endsWith(".jar") && Files.isRegularFile(p) && !p.equals(jar.toAbsolutePath())
                            && hasClass(p, entry)) {
                        return true;
                    }
                }
            }
            return false;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * A placeholder jar (the module skeleton) has no Dropwizard application in it; a thin jar whose manifest
     * {@code Class-Path} names the classes (handy while developing) is accepted too.
     */
    static boolean hasApplication(Path jar) {
        try (var zip = new java.util.jar.JarFile(jar.toFile())) {
            boolean fat = zip.getEntry("io/delayq/service/DelayqConfiguration.class") != null
                    && zip.getEntry("io/dropwizard/core/Application.class") != null;
            var mf = zip.getManifest();
            boolean thin = mf != null && mf.getMainAttributes().getValue("Class-Path") != null
                    && mf.getMainAttributes().getValue("Class-Path").contains("delayq");
            return fat || thin;
        } catch (Exception e) {
            return false;
        }
    }

    private void ceilingFailed(int rep, Exception e, Ceiling ceiling) {
        results.note(prefix + "W4", CEILING_LABEL + " rep " + rep + ": failed (" + e + ")");
        log.println("  " + prefix + "W4 " + CEILING_LABEL + " rep " + rep + " failed: " + e);
        if (ceiling != null) {
            try {
                ceiling.close();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * W4's HTTP enqueue ceiling ({@link io.delayq.bench.ceiling.CeilingApp}) on the bench Redis, started and warmed up
     * with untimed single POSTs for as long as the service is; each {@link #timedPass} is W4's single POSTs (the same
     * JSON, the same producers, each on its own keep-alive connection) timed the same way.
     */
    private final class Ceiling implements AutoCloseable {
        private final int rep;
        private final ServiceProcess process;
        private final List<Double> passes = new ArrayList<>();
        // A callback URL of the same length as the receiver's: stored with the rest, never called.
        private final String cb = "http://127.0.0.1:65535/";

        Ceiling(int rep) throws Exception {
            this.rep = rep;
            this.process = BenchServices.ceiling(backend.fresh(CEILING_LABEL));
            try {
                warmUp();
            } catch (Exception e) {
                process.close();
                throw e;
            }
        }

        private void warmUp() throws Exception {
            process.start();
            int n = Math.max(200, sizes.w4Jobs());
            long w0 = System.currentTimeMillis();
            int rounds = 0;
            do {
                String topic = "bench-warm-" + UUID.randomUUID().toString().substring(0, 8);
                Workloads.produce(n, (from, to) -> {
                    for (int id = from; id < to; id++) {
                        post(process, "/v1/topics/" + topic + "/jobs", jobJson(id, "\"delayMs\":0", cb, null), 201);
                    }
                });
                rounds++;
            } while (System.currentTimeMillis() - w0 < sizes.serviceWarmupMs());
            log.printf("  %sW4 %s rep %d: warm-up of %d round(s) in %.1f s (untimed)%n", prefix, CEILING_LABEL, rep,
                    rounds, (System.currentTimeMillis() - w0) / 1000.0);
        }

        void timedPass() throws Exception {
            double reqPerSecond = timedPosts(process, "bench-w4-", 0, cb);
            passes.add(reqPerSecond);
            log.printf("  %sW4 %s rep %d, pass %d (%s the service): %,.0f req/s%n", prefix, CEILING_LABEL, rep,
                    passes.size(), passes.size() == 1 ? "before" : "after", reqPerSecond);
        }

        double mean() {
            return passes.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        }

        @Override
        public void close() throws InterruptedException {
            process.close();
        }
    }

    /** @return the row's metrics, as added to the results (the ceiling's are added to it afterwards) */
    private Map<String, Double> w4(String label, int rep, boolean dashboard) throws Exception {
        String store = backend.fresh(LABEL);
        int n = sizes.w4Jobs();
        Map<String, Double> m = new LinkedHashMap<>();
        Map<String, long[]> commands = new LinkedHashMap<>();
        String topic = "bench-w4-" + UUID.randomUUID().toString().substring(0, 8);
        DashboardLoad tabs = null;
        try (CallbackReceiver receiver = BenchServices.callbacks(id -> { });
             ServiceProcess service = BenchServices.service(serviceJar, backend.serviceStoreYaml(store))) {
            service.start();
            if (dashboard) {
                tabs = new DashboardLoad(service.baseUrl(), BenchServices.TOKEN);
            }
            warmUp(service, receiver, sizes.serviceWarmupMs());
            if (!dashboard && backend instanceof RedisBackend) { // beside the ceiling, which only the Redis part has
                m.put("post_only_req_per_s", postOnly(service, receiver.url("/cb")));
            }
            Receipts receipts = new Receipts(n);
            receiver.handTo(BenchServices.ids(receipts));
            Backend.Mark before = backend.mark();
            long t0 = System.nanoTime();
            String cb = receiver.url("/cb");
            Workloads.produce(n, (from, to) -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int id = from; id < to; id++) {
                    long delay = rnd.nextLong(sizes.w4SpanMs() + 1);
                    long now = System.currentTimeMillis();
                    receipts.due[id] = now + delay;
                    post(service, "/v1/topics/" + topic + "/jobs", jobJson(id, "\"delayMs\":" + delay, cb, null), 201);
                }
            });
            double enqueueSeconds = (System.nanoTime() - t0) / 1e9;
            long maxDue = max(receipts.due);
            receipts.awaitAll(maxDue + sizes.lostAfterMs() - System.currentTimeMillis());
            Backend.Cost cost = before.cost();
            Thread.sleep(sizes.dupGraceMs());
            long[] late = Stats.sorted(receipts.lateness());
            m.put("jobs", (double) n);
            m.put("enqueue_req_per_s", n / enqueueSeconds);
            Workloads.putLateness(m, late);
            m.put("lost", (double) receipts.lost());
            m.put("duplicated", (double) receipts.duplicated());
            cost.into(m, n);
            commands.putAll(cost.commands());
            results.addLateness(prefix + "W4", delivered.containsKey(label) ? LABEL : label, late); // both variants pooled

            // throughput: fill a paused topic through the batch endpoint, resume, time the callbacks
            Burst burst = burst(service, receiver, topic + "-tp", n);
            m.put("delivered_jobs_per_s", burst.jobsPerSecond());
            m.put("burst_lost", (double) burst.receipts().lost());
            m.put("burst_resume_to_first_ms", (double) burst.resumeToFirstMs());
            Thread.sleep(sizes.dupGraceMs());
            m.put("burst_duplicated", (double) burst.receipts().duplicated());
            if (tabs != null) {
                m.put("dashboard_requests", (double) tabs.requests());
                m.put("dashboard_errors", (double) tabs.errors());
            }
        } finally {
            if (tabs != null) {
                tabs.close(); // also when the run failed: its tabs must not poll on into the next workload
            }
        }
        results.add(new Results.Run(prefix + "W4", label, rep, m, commands));
        if (delivered.containsKey(label)) {
            delivered.get(label).add(m.get("delivered_jobs_per_s"));
            enqueued.get(label).add(m.get("enqueue_req_per_s"));
        }
        if (m.containsKey("post_only_req_per_s")) {
            postsOnly.add(m.get("post_only_req_per_s"));
        }
        log.printf("  " + prefix + "W4 " + label + " rep %d: enqueue %,.0f req/s, delivered %,.0f jobs/s, p50 %.0f p99 %.0f max %.0f ms, lost %.0f dup %.0f (burst lost %.0f)%n",
                rep, m.get("enqueue_req_per_s"), m.get("delivered_jobs_per_s"), m.get("p50"), m.get("p99"), m.get("max"),
                m.get("lost"), m.get("duplicated"), m.get("burst_lost"));
        return m;
    }

    /**
     * The single POSTs alone, timed as the ceiling's are: W4's producers and JSON, the same delays spread over
     * {@code w4SpanMs} but an hour later, so that nothing falls due while they run. The ceiling only takes POSTs; this
     * is the service doing only that too (W4's own enqueue figure has the service delivering beside it).
     *
     * @return req/s
     */
    private double postOnly(ServiceProcess service, String callbackUrl) throws Exception {
        return timedPosts(service, "bench-w4-post-", POST_ONLY_LATER_MS, callbackUrl);
    }

    /**
     * W4's timed single POSTs, to a new topic: {@code w4Jobs} jobs from the 8 producers, each due {@code laterMs} plus
     * a random part of {@code w4SpanMs}. @return req/s
     */
    private double timedPosts(ServiceProcess service, String topicPrefix, long laterMs, String callbackUrl)
            throws Exception {
        int n = sizes.w4Jobs();
        String topic = topicPrefix + UUID.randomUUID().toString().substring(0, 8);
        long t0 = System.nanoTime();
        Workloads.produce(n, (from, to) -> {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            for (int id = from; id < to; id++) {
                long delay = laterMs + rnd.nextLong(sizes.w4SpanMs() + 1);
                post(service, "/v1/topics/" + topic + "/jobs", jobJson(id, "\"delayMs\":" + delay, callbackUrl, null), 201);
            }
        });
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    private void w6(int rep) throws Exception {
        String store = backend.fresh(LABEL);
        int n = sizes.w6Jobs();
        Map<String, Double> m = new LinkedHashMap<>();
        String topic = "bench-w6-" + UUID.randomUUID().toString().substring(0, 8);
        try (CallbackReceiver receiver = BenchServices.callbacks(id -> { });
             ServiceProcess service = BenchServices.service(serviceJar, backend.serviceStoreYaml(store))) {
            service.start();
            warmUp(service, receiver, 0); // the restarted process is cold anyway
            Receipts receipts = new Receipts(n);
            AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicLong relaunchedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicLong firstAfter = new AtomicLong(Long.MAX_VALUE);
            receiver.handTo(BenchServices.ids(id -> {
                long now = System.currentTimeMillis();
                // callbacks the killed process had already sent can land just after the kill: not a recovery
                if (now >= relaunchedAt.get()) {
                    firstAfter.accumulateAndGet(now, Math::min);
                }
                receipts.received(id);
            }));
            String cb = receiver.url("/cb");
            long t0 = System.currentTimeMillis();
            Workloads.produce(n, (from, to) -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int s = from; s < to; s += 100) {
                    StringBuilder b = new StringBuilder("{\"jobs\":[");
                    long now = System.currentTimeMillis();
                    for (int id = s; id < Math.min(to, s + 100); id++) {
                        long delay = rnd.nextLong(sizes.w6SpanMs() + 1);
                        receipts.due[id] = now + delay;
                        b.append(id == s ? "" : ",").append(jobJson(id, "\"delayMs\":" + delay, cb, "3s"));
                    }
                    post(service, "/v1/topics/" + topic + "/jobs/batch", b.append("]}").toString(), 200);
                }
            });
            long killAt = t0 + sizes.w6SpanMs() / 2;
            Thread.sleep(Math.max(0, killAt - System.currentTimeMillis()));
            killedAt.set(System.currentTimeMillis());
            service.kill();
            int beforeKill = receipts.distinct();
            relaunchedAt.set(System.currentTimeMillis());
            service.start();
            long readyAt = System.currentTimeMillis();
            long maxDue = max(receipts.due);
            // leases the killed process held come back after their 3 s timeout and the next sweep
            receipts.awaitAll(Math.max(maxDue, readyAt) + sizes.lostAfterMs() + 10_000 - System.currentTimeMillis());
            Thread.sleep(sizes.dupGraceMs());
            long[] late = Stats.sorted(receipts.lateness());
            Workloads.putLateness(m, late);
            m.put("jobs", (double) n);
            m.put("lost", (double) receipts.lost());
            m.put("duplicated", (double) receipts.duplicated());
            m.put("recovery_ms", firstAfter.get() == Long.MAX_VALUE ? Double.NaN : (double) (firstAfter.get() - killedAt.get()));
            m.put("restart_ms", (double) (readyAt - killedAt.get()));
            m.put("received_before_kill", (double) beforeKill);
            results.addLateness(prefix + "W6", LABEL, late);
        }
        results.add(new Results.Run(prefix + "W6", LABEL, rep, m, Map.of()));
        log.printf("  " + prefix + "W6 rep %d: lost %.0f, dup %.0f, recovery %.0f ms (restart to ready %.0f ms), p99 %.0f max %.0f ms%n",
                rep, m.get("lost"), m.get("duplicated"), m.get("recovery_ms"), m.get("restart_ms"), m.get("p99"), m.get("max"));
    }

    /** What a burst delivered: jobs / (last − first callback after the resume). */
    private record Burst(Receipts receipts, double jobsPerSecond, long resumeToFirstMs) {
    }

    /** Fills a paused topic with {@code n} due jobs through the batch endpoint, resumes it, times the callbacks. */
    private Burst burst(ServiceProcess service, CallbackReceiver receiver, String topic, int n) throws Exception {
        Receipts burst = new Receipts(n);
        AtomicLong first = new AtomicLong(Long.MAX_VALUE);
        receiver.handTo(BenchServices.ids(id -> {
            first.accumulateAndGet(System.currentTimeMillis(), Math::min);
            burst.received(id);
        }));
        String cb = receiver.url("/cb");
        put(service, "/v1/topics/" + topic, "{\"paused\":true}");
        Workloads.produce(n, (from, to) -> {
            for (int s = from; s < to; s += 500) {
                StringBuilder b = new StringBuilder("{\"jobs\":[");
                for (int id = s; id < Math.min(to, s + 500); id++) {
                    b.append(id == s ? "" : ",").append(jobJson(id, "\"delayMs\":0", cb, null));
                }
                post(service, "/v1/topics/" + topic + "/jobs/batch", b.append("]}").toString(), 200);
            }
        });
        long resumed = System.currentTimeMillis();
        put(service, "/v1/topics/" + topic, "{\"paused\":false}");
        burst.awaitAll(Math.max(60_000, n));
        long start = Math.max(resumed, Math.min(first.get(), burst.lastAt()));
        double rate = burst.distinct() / Math.max(0.001, (burst.lastAt() - start) / 1000.0);
        return new Burst(burst, rate, first.get() - resumed);
    }

    /**
     * Untimed rounds of what W4 measures (single POSTs due at once, then a batch burst) for at least
     * {@code minMs} (one round at least), so that the run measures the service in its steady state rather than its JIT
     * compiler: on 2 cores, C2 took about half a core for the first minute of load.
     */
    private void warmUp(ServiceProcess service, CallbackReceiver receiver, long minMs) throws Exception {
        int n = Math.max(200, sizes.w4Jobs());
        long t0 = System.currentTimeMillis();
        int rounds = 0;
        do {
            Receipts r = new Receipts(n);
            receiver.handTo(BenchServices.ids(r));
            String topic = "bench-warm-" + UUID.randomUUID().toString().substring(0, 8);
            Workloads.produce(n, (from, to) -> {
                for (int id = from; id < to; id++) {
                    post(service, "/v1/topics/" + topic + "/jobs", jobJson(id, "\"delayMs\":0", receiver.url("/cb"), null), 201);
                }
            });
            r.awaitAll(30_000);
            burst(service, receiver, topic + "-tp", n);
            rounds++;
        } while (System.currentTimeMillis() - t0 < minMs);
        log.printf("  service warm-up: %d round(s) of %,d single POSTs and a %,d-job burst in %.1f s (untimed)%n",
                rounds, n, n, (System.currentTimeMillis() - t0) / 1000.0);
    }

    static String jobJson(int id, String when, String callbackUrl, String timeout) {
        return "{\"id\":\"" + id + "\"," + when + ",\"payload\":" + Payloads.job(id) + ",\"callback\":{\"url\":\""
                + callbackUrl + "\"}" + (timeout == null ? "" : ",\"timeout\":\"" + timeout + "\"") + "}";
    }

    private void post(ServiceProcess service, String path, String body, int expected) throws Exception {
        send(service, "POST", path, body, expected);
    }

    private void put(ServiceProcess service, String path, String body) throws Exception {
        send(service, "PUT", path, body, 200);
    }

    private void send(ServiceProcess service, String method, String path, String body, int expected) throws Exception {
        KeepAliveHttp http = connections.computeIfAbsent(Thread.currentThread(),
                t -> new KeepAliveHttp("127.0.0.1", service.port(), BenchServices.TOKEN));
        KeepAliveHttp.Response r = http.send(method, path, body);
        if (r.status() != expected && !(expected == 201 && r.status() == 200)) {
            throw new IllegalStateException(method + " " + path + " answered " + r.status() + ": " + r.body()
                    + " (service log: " + service.log() + ")");
        }
    }

    private void closeConnections() {
        connections.values().forEach(KeepAliveHttp::close);
        connections.clear();
    }

    private static long max(long[] values) {
        long m = Long.MIN_VALUE;
        for (long v : values) {
            m = Math.max(m, v);
        }
        return m;
    }
}
