package io.delayq.service.delivery;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.NewJob;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TopicPattern;
import io.delayq.redis.EmbeddedRedis;
import io.delayq.redis.RedisJobStore;
import io.delayq.service.history.TopicActivity;
import io.delayq.testing.CallbackReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not a test: the noisy neighbour of issue 28 measured on the engine in this JVM, on its own Redis, run by hand with
 * {@code ./mvnw -o -pl service -am test -Dtest=NoisyNeighbourMeasurement -Ddelayq.measure=true
 * -Dsurefire.failIfNoSpecifiedTests=false} (and {@code -Ddelayq.measure.aJobs=30000 -Ddelayq.measure.aTopics=30}).
 * Team A has {@code aJobs} jobs due at one instant over {@code aTopics} topics to its receiver while team B has 20
 * jobs/s due to another; prints B's lateness beside B alone, and A's drain. No assertions.
 */
@EnabledIfSystemProperty(named = "delayq.measure", matches = "true")
class NoisyNeighbourMeasurement {
    private static final String PAYLOAD = "{\"order\":\"" + "x".repeat(180) + "\",\"n\":1}";

    public static void main(String[] args) throws Exception {
        new NoisyNeighbourMeasurement().measure();
    }

    @Test
    void measure() throws Exception {
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(ch.qos.logback.classic.Level.WARN);
        int aJobs = Integer.getInteger("delayq.measure.aJobs", 30_000);
        int aTopics = Integer.getInteger("delayq.measure.aTopics", 30);
        ConcurrentHashMap<String, Long> received = new ConcurrentHashMap<>();
        try (EmbeddedRedis redis = EmbeddedRedis.start(0, null, false);
             RedisJobStore store = RedisJobStore.connect(redis.uri());
             CallbackReceiver a = new CallbackReceiver(r -> received.putIfAbsent(r.header("Delayq-Id"), r.receivedAtMs()));
             CallbackReceiver b = new CallbackReceiver(r -> received.putIfAbsent(r.header("Delayq-Id"), r.receivedAtMs()))) {
            DeliveryFactory config = new DeliveryFactory();
            config.setSigningSecret("measure-secret-0123456789");
            // team A owns a*, team B b* (weight 1 each)
            TenantLookup tenants = TenantLookup.over(() -> List.of(
                    new Tenant("team-a", List.of(TopicPattern.of("a.*")), null, 1, List.of(), true),
                    new Tenant("team-b", List.of(TopicPattern.of("b.*")), null, 1, List.of(), true)));
            DeliveryEngine engine = new DeliveryEngine(store, config, new MetricRegistry(), TopicActivity.NONE,
                    Boolean.getBoolean("delayq.measure.noTenants") ? TenantLookup.NONE : tenants);
            engine.start();
            try {
                run(store, a, b, received, 5_000, 5, "warm-up");
                run(store, a, b, received, 0, aTopics, "B alone");
                String jfr = System.getProperty("delayq.measure.jfr");
                jdk.jfr.Recording recording = null;
                if (jfr != null) { // a profile of the measured runs: -Ddelayq.measure.jfr=/tmp/measure.jfr
                    recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
                    recording.start();
                }
                run(store, a, b, received, aJobs, 1, "A in 1 topic");
                run(store, a, b, received, aJobs, aTopics, "A over " + aTopics + " topics");
                if (recording != null) {
                    recording.dump(java.nio.file.Path.of(jfr));
                    recording.close();
                }
            } finally {
                engine.stop();
            }
        }
    }

    private static void run(RedisJobStore store, CallbackReceiver a, CallbackReceiver b, ConcurrentHashMap<String, Long> received,
                            int aJobs, int aTopics, String label) throws Exception {
        received.clear();
        String run = UUID.randomUUID().toString().substring(0, 6);
        long instant = store.now() + 3_000;
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < aJobs; i++) {
            jobs.add(new NewJob("a." + run + "." + (i % aTopics), "a" + i, PAYLOAD, null, instant, 3, null,
                    Callback.of(a.url("/a")), null, false, Delivery.PUSH));
        }
        for (int from = 0; from < jobs.size(); from += 1_000) {
            store.enqueue(jobs.subList(from, Math.min(jobs.size(), from + 1_000)));
        }
        // B: 20 jobs/s from 1 s before the instant until 4 s after it
        ConcurrentHashMap<String, Long> bDue = new ConcurrentHashMap<>();
        List<NewJob> bJobs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            long due = instant - 1_000 + i * 50L;
            bDue.put("b" + i, due);
            bJobs.add(new NewJob("b." + run, "b" + i, PAYLOAD, null, due, 3, null, Callback.of(b.url("/b")), null,
                    false, Delivery.PUSH));
        }
        store.enqueue(bJobs);
        long deadline = System.currentTimeMillis() + 120_000;
        while (received.size() < aJobs + bJobs.size() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        long[] bLate = bDue.entrySet().stream()
                .mapToLong(e -> received.getOrDefault(e.getKey(), Long.MAX_VALUE) - e.getValue()).sorted().toArray();
        AtomicLong lastA = new AtomicLong(instant);
        received.forEach((id, at) -> {
            if (id.startsWith("a")) {
                lastA.accumulateAndGet(at, Math::max);
            }
        });
        long aReceived = received.keySet().stream().filter(id -> id.startsWith("a")).count();
        double drain = aJobs == 0 ? 0 : aReceived / Math.max(0.001, (lastA.get() - instant) / 1000.0);
        System.out.printf("MEASURE %-22s B lateness p50 %d p99 %d max %d ms; A %d/%d delivered, drain %.0f jobs/s,"
                        + " last A job %d ms late%n", label, bLate[bLate.length / 2],
                bLate[(int) Math.min(bLate.length - 1, Math.ceil(bLate.length * 0.99) - 1)], bLate[bLate.length - 1],
                aReceived, aJobs, drain, lastA.get() - instant);
        Arrays.fill(bLate, 0);
    }
}
