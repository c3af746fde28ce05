package io.delayq.bench;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W4 and W6: delayq through the service itself. The service jar runs as a child process on the bench Redis; 8
 * producers POST jobs to the REST API with a callback to a local HTTP receiver that answers 200.
 *
 * <ul>
 *   <li>W4 precision: jobs due over a span, single POSTs; enqueue req/s, lateness (receipt − producer's clock before
 *       the POST − delay), lost, duplicated, Redis cost. W4 throughput: as many jobs again into a paused topic through
 *       the batch endpoint, then resumed; delivered jobs/s = jobs / (last − first callback).</li>
 *   <li>W6: W2-like through the service (batch POSTs, 3 s attempt timeout) while the service is {@code kill -9}ed at
 *       the middle of the due span and started again; lost (must be 0), duplicated, recovery time (kill → first
 *       callback after the restart).</li>
 * </ul>
 */
public final class ServiceWorkloads {
    private final BenchRedis redis;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;
    private final Path serviceJar;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    public ServiceWorkloads(BenchRedis redis, Sizes sizes, Results results, PrintStream log, Path serviceJar) {
        this.redis = redis;
        this.sizes = sizes;
        this.results = results;
        this.log = log;
        this.serviceJar = serviceJar;
    }

    public void run(boolean w4, boolean w6) {
        if (!Files.isRegularFile(serviceJar) || !hasApplication(serviceJar)) {
            String why = "skipped: service jar not found (" + serviceJar + "; build it with ./mvnw -q -DskipTests package)";
            if (w4) {
                results.note("W4", "delayq-service: " + why);
            }
            if (w6) {
                results.note("W6", "delayq-service: " + why);
            }
            log.println("W4/W6 " + why);
            return;
        }
        if (w4) {
            log.println("== W4 end to end over HTTP (" + serviceJar.getFileName() + ")");
            for (int rep = 1; rep <= sizes.reps(); rep++) {
                try {
                    w4(rep);
                } catch (Exception e) {
                    results.note("W4", "delayq-service rep " + rep + ": failed (" + e + ")");
                    log.println("  W4 rep " + rep + " failed: " + e);
                }
            }
        }
        if (w6) {
            log.println("== W6 kill -9 of the service mid-run");
            for (int rep = 1; rep <= sizes.reps(); rep++) {
                try {
                    w6(rep);
                } catch (Exception e) {
                    results.note("W6", "delayq-service rep " + rep + ": failed (" + e + ")");
                    log.println("  W6 rep " + rep + " failed: " + e);
                }
            }
        }
        redis.flushAll();
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

    private void w4(int rep) throws Exception {
        redis.reset();
        int n = sizes.w4Jobs();
        Map<String, Double> m = new LinkedHashMap<>();
        Map<String, long[]> commands = new LinkedHashMap<>();
        String topic = "bench-w4-" + UUID.randomUUID().toString().substring(0, 8);
        try (CallbackReceiver receiver = new CallbackReceiver(); ServiceProcess service = new ServiceProcess(serviceJar, redis.uri())) {
            service.start();
            warmUp(service, receiver);
            Receipts receipts = new Receipts(n);
            receiver.receiveInto(receipts);
            redis.resetStats();
            RedisInfo before = redis.info();
            long t0 = System.nanoTime();
            String cb = receiver.url();
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
            RedisInfo.Cost cost = redis.info().costSince(before);
            Thread.sleep(sizes.dupGraceMs());
            long[] late = Stats.sorted(receipts.lateness());
            m.put("jobs", (double) n);
            m.put("enqueue_req_per_s", n / enqueueSeconds);
            Workloads.putLateness(m, late);
            m.put("lost", (double) receipts.lost());
            m.put("duplicated", (double) receipts.duplicated());
            cost.into(m, n);
            commands.putAll(cost.commands());
            results.addLateness("W4", "delayq-service", late);

            // throughput: fill a paused topic through the batch endpoint, resume, time the callbacks
            String topic2 = topic + "-tp";
            Receipts burst = new Receipts(n);
            AtomicLong first = new AtomicLong(Long.MAX_VALUE);
            receiver.receiveInto(id -> {
                first.accumulateAndGet(System.currentTimeMillis(), Math::min);
                burst.received(id);
            });
            put(service, "/v1/topics/" + topic2, "{\"paused\":true}");
            Workloads.produce(n, (from, to) -> {
                for (int s = from; s < to; s += 500) {
                    StringBuilder b = new StringBuilder("{\"jobs\":[");
                    for (int id = s; id < Math.min(to, s + 500); id++) {
                        b.append(id == s ? "" : ",").append(jobJson(id, "\"delayMs\":0", cb, null));
                    }
                    post(service, "/v1/topics/" + topic2 + "/jobs/batch", b.append("]}").toString(), 200);
                }
            });
            long resumed = System.currentTimeMillis();
            put(service, "/v1/topics/" + topic2, "{\"paused\":false}");
            burst.awaitAll(Math.max(60_000, n));
            long start = Math.max(resumed, Math.min(first.get(), burst.lastAt()));
            m.put("delivered_jobs_per_s", burst.distinct() / Math.max(0.001, (burst.lastAt() - start) / 1000.0));
            m.put("burst_lost", (double) burst.lost());
            m.put("burst_resume_to_first_ms", (double) (first.get() - resumed));
            Thread.sleep(sizes.dupGraceMs());
            m.put("burst_duplicated", (double) burst.duplicated());
        }
        results.add(new Results.Run("W4", "delayq-service", rep, m, commands));
        log.printf("  W4 rep %d: enqueue %,.0f req/s, delivered %,.0f jobs/s, p50 %.0f p99 %.0f max %.0f ms, lost %.0f dup %.0f (burst lost %.0f)%n",
                rep, m.get("enqueue_req_per_s"), m.get("delivered_jobs_per_s"), m.get("p50"), m.get("p99"), m.get("max"),
                m.get("lost"), m.get("duplicated"), m.get("burst_lost"));
    }

    private void w6(int rep) throws Exception {
        redis.reset();
        int n = sizes.w6Jobs();
        Map<String, Double> m = new LinkedHashMap<>();
        String topic = "bench-w6-" + UUID.randomUUID().toString().substring(0, 8);
        try (CallbackReceiver receiver = new CallbackReceiver(); ServiceProcess service = new ServiceProcess(serviceJar, redis.uri())) {
            service.start();
            warmUp(service, receiver);
            Receipts receipts = new Receipts(n);
            AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicLong relaunchedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicLong firstAfter = new AtomicLong(Long.MAX_VALUE);
            receiver.receiveInto(id -> {
                long now = System.currentTimeMillis();
                // callbacks the killed process had already sent can land just after the kill: not a recovery
                if (now >= relaunchedAt.get()) {
                    firstAfter.accumulateAndGet(now, Math::min);
                }
                receipts.received(id);
            });
            String cb = receiver.url();
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
            results.addLateness("W6", "delayq-service", late);
        }
        results.add(new Results.Run("W6", "delayq-service", rep, m, Map.of()));
        log.printf("  W6 rep %d: lost %.0f, dup %.0f, recovery %.0f ms (restart to ready %.0f ms), p99 %.0f max %.0f ms%n",
                rep, m.get("lost"), m.get("duplicated"), m.get("recovery_ms"), m.get("restart_ms"), m.get("p99"), m.get("max"));
    }

    /** A few hundred untimed requests and callbacks so the service's JIT is not measured. */
    private void warmUp(ServiceProcess service, CallbackReceiver receiver) throws Exception {
        int n = Math.min(2_000, Math.max(200, sizes.w4Jobs() / 10));
        Receipts r = new Receipts(n);
        receiver.receiveInto(r);
        String topic = "bench-warm-" + UUID.randomUUID().toString().substring(0, 8);
        Workloads.produce(n, (from, to) -> {
            for (int id = from; id < to; id++) {
                post(service, "/v1/topics/" + topic + "/jobs", jobJson(id, "\"delayMs\":0", receiver.url(), null), 201);
            }
        });
        r.awaitAll(30_000);
    }

    static String jobJson(int id, String when, String callbackUrl, String timeout) {
        return "{\"id\":\"" + id + "\"," + when + ",\"payload\":" + Payloads.job(id) + ",\"callback\":{\"url\":\""
                + callbackUrl + "\"}" + (timeout == null ? "" : ",\"timeout\":\"" + timeout + "\"") + "}";
    }

    private void post(ServiceProcess service, String path, String body, int expected) throws Exception {
        send(service, HttpRequest.newBuilder(URI.create(service.base() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)), expected);
    }

    private void put(ServiceProcess service, String path, String body) throws Exception {
        send(service, HttpRequest.newBuilder(URI.create(service.base() + path))
                .PUT(HttpRequest.BodyPublishers.ofString(body)), 200);
    }

    private void send(ServiceProcess service, HttpRequest.Builder b, int expected) throws Exception {
        HttpResponse<String> r = http.send(b.header("Authorization", "Bearer " + ServiceProcess.TOKEN)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expected && !(expected == 201 && r.statusCode() == 200)) {
            throw new IllegalStateException(r.request().method() + " " + r.request().uri().getPath() + " answered "
                    + r.statusCode() + ": " + r.body() + " (service log: " + service.logDir() + ")");
        }
    }

    private static long max(long[] values) {
        long m = Long.MIN_VALUE;
        for (long v : values) {
            m = Math.max(m, v);
        }
        return m;
    }
}
