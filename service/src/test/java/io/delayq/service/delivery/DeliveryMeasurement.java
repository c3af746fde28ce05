package io.delayq.service.delivery;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.sun.net.httpserver.HttpServer;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.NewJob;
import io.delayq.redis.EmbeddedRedis;
import io.delayq.redis.RedisJobStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import redis.clients.jedis.Jedis;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Not a test: a measurement of the engine on its own Redis, run by hand with
 * {@code ./mvnw -o -pl service test -Dtest=DeliveryMeasurement -Ddelayq.measure=true} and optionally
 * {@code -Ddelayq.measure.jobs=10000 -Ddelayq.measure.spreadMs=5000 -Ddelayq.measure.drainJobs=20000
 * -Ddelayq.measure.ackFlushMs=10}. Scenarios: jobs enqueued beforehand and due uniformly over the spread (delivery cost
 * only); 8 producers adding single jobs with delays in [0, spread) while the engine runs (W2-like, enqueue included);
 * 100 sparse jobs; a drain of jobs all due at once. Prints delivered jobs/s, lateness percentiles (receipt − intended
 * due time and receipt − the store's runAt), Redis calls and CPU per job (INFO deltas), and the JVM's CPU per job by
 * thread group (the receiver runs in the same JVM). No assertions on timing.
 */
@EnabledIfSystemProperty(named = "delayq.measure", matches = "true")
class DeliveryMeasurement {
    private static final String PAYLOAD = "{\"order\":\"" + "x".repeat(180) + "\",\"n\":1}";

    @Test
    void measure() throws Exception {
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(ch.qos.logback.classic.Level.INFO);
        int jobs = Integer.getInteger("delayq.measure.jobs", 5_000);
        int spreadMs = Integer.getInteger("delayq.measure.spreadMs", 5_000);
        try (EmbeddedRedis redis = EmbeddedRedis.start(0, null, false);
             RedisJobStore store = RedisJobStore.connect(redis.uri());
             Jedis admin = new Jedis("127.0.0.1", redis.port())) {
            ConcurrentHashMap<String, Long> receivedAt = new ConcurrentHashMap<>();
            AtomicInteger duplicates = new AtomicInteger();
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
            AtomicInteger receiverThreadCount = new AtomicInteger();
            ExecutorService serverThreads = Executors.newFixedThreadPool(16,
                    r -> new Thread(r, "receiver-" + receiverThreadCount.incrementAndGet()));
            server.setExecutor(serverThreads);
            server.createContext("/", exchange -> {
                long at = System.currentTimeMillis();
                try (exchange; InputStream in = exchange.getRequestBody()) {
                    in.readAllBytes();
                    String id = exchange.getRequestHeaders().getFirst("Delayq-Id");
                    if (receivedAt.putIfAbsent(id, at) != null) {
                        duplicates.incrementAndGet();
                    }
                    exchange.sendResponseHeaders(200, -1);
                }
            });
            server.start();
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";

            try {
                System.out.println("warm-up: " + run(store, admin, url, receivedAt, duplicates, 2_000, 2_000, true));
                System.out.println("warm-up: " + run(store, admin, url, receivedAt, duplicates, 2_000, 2_000, false));
                System.out.println("MEASURE pre-enqueued (delivery cost only): "
                        + run(store, admin, url, receivedAt, duplicates, jobs, spreadMs, true));
                System.out.println("MEASURE W2-like, 8 producers adding while due (enqueue + delivery cost): "
                        + run(store, admin, url, receivedAt, duplicates, jobs, spreadMs, false));
                System.out.println("MEASURE sparse: 100 jobs over 5 s (~20 due/s), pre-enqueued: "
                        + run(store, admin, url, receivedAt, duplicates, 100, 5_000, true));
                int drain = Integer.getInteger("delayq.measure.drainJobs", 20_000);
                System.out.println("MEASURE drain: " + drain + " jobs all due at the same moment (throughput): "
                        + run(store, admin, url, receivedAt, duplicates, drain, 0, true));
            } finally {
                server.stop(0);
                serverThreads.shutdownNow();
            }
        }
    }

    private static String run(RedisJobStore store, Jedis admin, String url, Map<String, Long> receivedAt,
                              AtomicInteger duplicates, int n, int spreadMs, boolean preEnqueue) throws Exception {
        String topic = "m-" + UUID.randomUUID();
        DeliveryFactory config = new DeliveryFactory();
        config.setSigningSecret("bench");
        config.setAckFlushInterval(io.dropwizard.util.Duration.milliseconds(Integer.getInteger("delayq.measure.ackFlushMs", 10)));
        MetricRegistry metrics = new MetricRegistry();
        DeliveryEngine engine = new DeliveryEngine(store, config, metrics);
        engine.start();
        Map<String, Long> cpuBefore = threadCpu();
        long threadsBefore = java.lang.management.ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
        receivedAt.clear();
        duplicates.set(0);
        Map<String, Long> intended = new ConcurrentHashMap<>();
        Map<String, Long> runAt = new ConcurrentHashMap<>();
        long start;
        Map<String, Long> cpuAtStart;
        if (preEnqueue) {
            List<NewJob> batch = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long delay = spreadMs == 0 ? 3_000 : 1_000 + ThreadLocalRandom.current().nextLong(spreadMs);
                batch.add(job(topic, "j" + i, delay, url));

            }
            for (int from = 0; from < n; from += 1_000) {
                store.enqueue(batch.subList(from, Math.min(n, from + 1_000)))
                        .forEach(r -> {
                            runAt.put(r.job().id(), r.job().runAt());
                            intended.put(r.job().id(), r.job().runAt()); // no producer-side due time here
                        });
            }
            admin.configResetStat();
            cpuAtStart = redisStats(admin);
            start = System.currentTimeMillis();
        } else {
            admin.configResetStat();
            cpuAtStart = redisStats(admin);
            start = System.currentTimeMillis();
            Thread[] producers = new Thread[8];
            AtomicInteger next = new AtomicInteger();
            for (int p = 0; p < producers.length; p++) {
                producers[p] = new Thread(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < n) {
                        long delay = ThreadLocalRandom.current().nextLong(spreadMs);
                        long due = System.currentTimeMillis() + delay;
                        var r = store.enqueue(job(topic, "j" + i, delay, url));
                        intended.put("j" + i, due);
                        runAt.put("j" + i, r.job().runAt());
                    }
                });
                producers[p].start();
            }
            for (Thread t : producers) {
                t.join();
            }
        }
        long deadline = System.currentTimeMillis() + spreadMs + 30_000;
        while (receivedAt.size() < n && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        long last = receivedAt.values().stream().mapToLong(Long::longValue).max().orElse(start);
        Thread.sleep(500); // acks flushed, duplicates would arrive
        Map<String, Long> stats = redisStats(admin);
        // used_cpu_* count from the server's start (CONFIG RESETSTAT does not reset them): take the difference
        stats.put("cpuMicros", stats.get("cpuMicros") - cpuAtStart.get("cpuMicros"));
        stats.put("sysMicros", stats.get("sysMicros") - cpuAtStart.get("sysMicros"));
        Map<String, Long> cpuAfter = threadCpu();
        StringBuilder jvmCpu = new StringBuilder("threads started " + (java.lang.management.ManagementFactory
                .getThreadMXBean().getTotalStartedThreadCount() - threadsBefore) + "; ");
        cpuAfter.forEach((group, nanos) -> jvmCpu.append(group).append(' ')
                .append((nanos - cpuBefore.getOrDefault(group, 0L)) / 1_000 / n).append(" µs/job, "));
        engine.stop();
        Snapshot engineLateness = metrics.histogram("delayq.delivery.lateness").getSnapshot();
        long[] vsIntended = new long[receivedAt.size()];
        long[] vsRunAt = new long[receivedAt.size()];
        int k = 0;
        for (var e : receivedAt.entrySet()) {
            vsIntended[k] = e.getValue() - intended.get(e.getKey());
            vsRunAt[k] = e.getValue() - runAt.get(e.getKey());
            k++;
        }
        long first = intended.values().stream().mapToLong(Long::longValue).min().orElse(start);
        double seconds = (last - Math.max(first, start)) / 1000.0;
        return String.format("%n  jobs %d, received %d, lost %d, duplicated %d, early (vs runAt) %d, over %.2f s"
                        + " (%.0f delivered/s)%n  lateness vs intended due ms: %s%n  lateness vs store runAt ms:    %s"
                        + "%n  engine: lateness (start − runAt) p50 %.0f p99 %.0f max %d ms; %d reserve calls for %d jobs"
                        + "%n  JVM CPU by thread group: %s"
                        + "%n  Redis: %.1f calls/job, %.1f CPU ms per 1k jobs (of which sys %.1f; in commands %.1f) (%d calls: %s)",
                n, receivedAt.size(), n - receivedAt.size(), duplicates.get(),
                Arrays.stream(vsRunAt).filter(v -> v < 0).count(), seconds, receivedAt.size() / seconds,
                percentiles(vsIntended), percentiles(vsRunAt),
                engineLateness.getMedian(), engineLateness.get99thPercentile(), engineLateness.getMax(),
                metrics.meter("delayq.delivery.reserve-calls").getCount(), metrics.meter("delayq.delivery.reserved").getCount(),
                jvmCpu,
                stats.get("calls") / (double) n, stats.get("cpuMicros") / 1000.0 / n * 1000,
                stats.get("sysMicros") / 1000.0 / n * 1000, stats.getOrDefault("usec:evalsha", 0L) / 1000.0 / n * 1000
                        + stats.entrySet().stream().filter(e -> e.getKey().startsWith("usec:") && !e.getKey().equals("usec:evalsha")
                        && !isScriptInner(e.getKey())).mapToLong(Map.Entry::getValue).sum() / 1000.0 / n * 1000,
                stats.get("calls"),
                top(stats));
    }

    private static NewJob job(String topic, String id, long delay, String url) {
        return new NewJob(topic, id, PAYLOAD, delay, null, 3, null, Callback.of(url), null, false, Delivery.PUSH);
    }

    private static String percentiles(long[] values) {
        if (values.length == 0) {
            return "none";
        }
        long[] v = values.clone();
        Arrays.sort(v);
        return String.format("p50 %d, p90 %d, p99 %d, p99.9 %d, max %d", v[(int) (v.length * 0.5)],
                v[(int) (v.length * 0.9)], v[Math.min(v.length - 1, (int) (v.length * 0.99))],
                v[Math.min(v.length - 1, (int) (v.length * 0.999))], v[v.length - 1]);
    }

    private static Map<String, Long> redisStats(Jedis admin) {
        Map<String, Long> out = new HashMap<>();
        long calls = 0;
        for (String line : admin.info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring(8, line.indexOf(':'));
            if (name.equals("info") || name.equals("config")) {
                continue;
            }
            long c = Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+).*", "$1"));
            out.put("cmd:" + name, c);
            out.put("usec:" + name, Long.parseLong(line.replaceAll(".*,usec=(\\d+),.*", "$1")));
            calls += c;
        }
        out.put("calls", calls);
        String cpu = admin.info("cpu");
        double user = Double.parseDouble(cpu.replaceAll("(?s).*used_cpu_user:([0-9.]+).*", "$1"));
        double sys = Double.parseDouble(cpu.replaceAll("(?s).*used_cpu_sys:([0-9.]+).*", "$1"));
        out.put("cpuMicros", (long) ((user + sys) * 1_000_000));
        out.put("sysMicros", (long) (sys * 1_000_000));
        return out;
    }

    /** CPU time of live threads, summed by name without its number (engine timers, HTTP client, receiver, …). */
    private static Map<String, Long> threadCpu() {
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Map<String, Long> out = new java.util.TreeMap<>();
        for (long id : mx.getAllThreadIds()) {
            var info = mx.getThreadInfo(id);
            long cpu = mx.getThreadCpuTime(id);
            if (info == null || cpu < 0) {
                continue;
            }
            String group = info.getThreadName().replaceAll("[-#]?\\d+$", "");
            if (group.startsWith("pool-")) {
                group = "pool";
            }
            out.merge(group, cpu, Long::sum);
        }
        return out;
    }

    private static boolean isScriptInner(String key) {
        return List.of("usec:hget", "usec:hset", "usec:zadd", "usec:zrem", "usec:zrange", "usec:zrangebyscore",
                "usec:time", "usec:hincrby", "usec:publish", "usec:xadd", "usec:hdel").contains(key);
    }

    private static String top(Map<String, Long> stats) {
        StringBuilder sb = new StringBuilder();
        stats.entrySet().stream().filter(e -> e.getKey().startsWith("cmd:"))
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(e -> sb.append(e.getKey().substring(4)).append('=').append(e.getValue())
                        .append('/').append(stats.getOrDefault("usec:" + e.getKey().substring(4), 0L)).append("us "));
        return sb.toString().trim();
    }
}
