package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.ServiceProcess;
import io.dropwizard.testing.ConfigOverride;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many teams on one delayq, on two instances (issue 28): two service processes on one store; team A has a burst due at
 * one instant spread over 30 of its topics while team B has 20 jobs/s due. Each instance shares its delivery between
 * the tenants by weight and every instance sees all due work through the store, so the fleet is fair: B's jobs stay
 * on time through A's burst (before fair dispatch, B waited behind the whole burst: seconds), and every job of A
 * arrives. Both instances deliver.
 */
@Tag("slow")
class FairDispatchTest {
    private static final String TENANTS = """
            tenants:
              - name: team-a
                topics: ["fair-a.*"]
              - name: team-b
                topics: ["fair-b.*"]
            """;
    private static final int A_JOBS = 30_000;
    private static final int A_TOPICS = 30;
    private static final int B_PER_SECOND = 20;
    /**
     * Callbacks in flight per instance: the receivers run in this JVM, a thread per connection, and hundreds of A's
     * connections would compete with B's few for this machine's two cores, which measures the receiver, not delayq.
     */
    private static final String MAX_CONCURRENCY = "64";

    /** Jobs enqueued per second in the last round: how far ahead the next instant must be. */
    private double enqueuePerSecond = 1_000;

    @Test
    void aTeamsBurstOverThirtyTopicsDoesNotDelayAnotherTeamOnEitherInstance(@TempDir Path dir) throws Exception {
        Map<String, Long> received = new ConcurrentHashMap<>();
        try (CallbackReceiver a = new CallbackReceiver(r -> received.putIfAbsent(r.header("Delayq-Id"), r.receivedAtMs()));
             CallbackReceiver b = new CallbackReceiver(r -> received.putIfAbsent(r.header("Delayq-Id"), r.receivedAtMs()));
             ServiceProcess first = instance(dir).start();
             ServiceProcess second = instance(dir).start()) {
            List<ServiceProcess> instances = List.of(first, second);
            // Untimed: both JVMs' first thousands of deliveries (the JIT compiler) on topics of both tenants.
            round(instances, a, b, received, 6_000, 5, 2_000);
            long[] alone = round(instances, a, b, received, 0, 0, 4_000).bAfterInstant();

            Round r = round(instances, a, b, received, A_JOBS, A_TOPICS, 6_000);

            assertThat(r.aReceived).as("every job of A arrives: nothing lost").isEqualTo(A_JOBS);
            assertThat(r.bLate).as("every job of B arrives").hasSize(r.bJobs);
            long[] during = r.bDuringBurst();
            assertThat(during.length).as("B's jobs due while A's burst drained").isGreaterThan(5);
            long p99 = during[(int) Math.ceil(during.length * 0.99) - 1];
            long aloneP99 = alone[(int) Math.ceil(alone.length * 0.99) - 1];
            System.out.printf("FairDispatchTest: A %,d jobs over %d topics drained in %d ms; B's lateness during it"
                    + " p50 %d p99 %d max %d ms (%d jobs); B alone p50 %d p99 %d ms%n", A_JOBS, A_TOPICS,
                    r.aLastAt - r.instant, during[during.length / 2], p99, during[during.length - 1], during.length,
                    alone[alone.length / 2], aloneP99);
            // Before fair dispatch B waited for A's whole burst (p99 ≈ the drain, seconds): the property is that B's
            // lateness stays far below A's drain, whatever the machine. How many ms it is, is the benchmark's to say
            // (NOISY, beside B alone), not a timed assertion here: a clean-clone build saw 105 ms once, 17 ms alone.
            assertThat(p99).as("B's p99 lateness while A drains, ms (B alone: %d)", aloneP99)
                    .isLessThan((r.aLastAt - r.instant) / 5);
            for (ServiceProcess instance : instances) {
                assertThat(delivered(instance)).as("deliveries of the instance on port %s", instance.baseUrl())
                        .isGreaterThan(1_000);
                String exposition = admin(instance, "/metrics/prometheus");
                assertThat(exposition).as("the per-tenant series of the instance on port %s", instance.baseUrl())
                        .contains("delayq_delivery_tenant_reserved_total{tenant=\"team-a\"}",
                                "delayq_delivery_tenant_reserved_total{tenant=\"team-b\"}",
                                "delayq_delivery_tenant_weight{tenant=\"team-b\"} 1.0",
                                "delayq_delivery_tenant_slots{tenant=\"team-a\"}");
            }
        }
    }

    private ServiceProcess instance(Path dir) throws Exception {
        return TestApps.process(dir, TENANTS,
                ConfigOverride.config("limits.maxBatchSize", "1000"),
                ConfigOverride.config("delivery.maxConcurrency", MAX_CONCURRENCY),
                ConfigOverride.config("limits.maxRequestBytes", "1MiB"));
    }

    /** Callbacks this instance delivered, from its admin port's metrics. */
    private long delivered(ServiceProcess instance) throws Exception {
        JsonNode metrics = new ObjectMapper().readTree(admin(instance, "/metrics"));
        return metrics.path("meters").path("delayq.delivery.delivered").path("count").asLong();
    }

    private String admin(ServiceProcess instance, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(instance.adminUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** What one round delivered. */
    private record Round(long instant, int aReceived, long aLastAt, int bJobs, Map<Long, Long> bLate) {
        /** B's lateness, sorted, for its jobs due from the instant until A's last job arrived. */
        long[] bAfterInstant() {
            return bLate.entrySet().stream().filter(e -> e.getKey() >= instant)
                    .mapToLong(Map.Entry::getValue).sorted().toArray();
        }

        long[] bDuringBurst() {
            return bLate.entrySet().stream().filter(e -> e.getKey() >= instant && e.getKey() <= aLastAt)
                    .mapToLong(Map.Entry::getValue).sorted().toArray();
        }
    }

    /**
     * A's {@code aJobs} over {@code topics} topics due at one instant, B's 20 jobs/s from a second before it for
     * {@code bSpanMs}, enqueued through both instances; waits for all of them.
     */
    private Round round(List<ServiceProcess> instances, CallbackReceiver a, CallbackReceiver b, Map<String, Long> received,
                        int aJobs, int topics, long bSpanMs) throws Exception {
        received.clear();
        String run = UUID.randomUUID().toString().substring(0, 8);
        // far enough ahead that the enqueue is done first, at half the rate the last round saw
        long instant = System.currentTimeMillis() + 2_000
                + Math.min(60_000, (long) (aJobs * 1000 / (enqueuePerSecond / 2)));
        long enqueueStart = System.nanoTime();
        Map<String, Long> bDue = new ConcurrentHashMap<>();
        List<String> bItems = new ArrayList<>();
        for (long due = instant - 1_000; due < instant - 1_000 + bSpanMs; due += 1_000 / B_PER_SECOND) {
            String id = "b-" + run + "-" + bDue.size();
            bDue.put(id, due);
            bItems.add(item(id, due, b.url("/b")));
        }
        post(instances.get(0), "fair-b." + run, bItems);
        ExecutorService producers = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> posts = new ArrayList<>();
            for (int t = 0; t < topics; t++) {
                int topic = t;
                posts.add(producers.submit(() -> {
                    List<String> items = new ArrayList<>();
                    for (int i = topic; i < aJobs; i += topics) {
                        items.add(item("a-" + run + "-" + i, instant, a.url("/a")));
                    }
                    for (int from = 0; from < items.size(); from += 1_000) {
                        post(instances.get(topic % 2), "fair-a." + run + "." + topic,
                                items.subList(from, Math.min(items.size(), from + 1_000)));
                    }
                }));
            }
            for (Future<?> post : posts) {
                post.get();
            }
        } finally {
            producers.shutdownNow();
        }
        enqueuePerSecond = aJobs / ((System.nanoTime() - enqueueStart) / 1e9);
        if (topics == A_TOPICS) { // the measured round (the warm-up's instant is a guess: its rate is not known yet)
            assertThat(System.currentTimeMillis()).as("enqueued before the instant").isLessThan(instant);
        }
        long deadline = Math.max(System.currentTimeMillis(), instant) + 90_000;
        while (received.size() < aJobs + bDue.size() && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        Thread.sleep(500);
        int aReceived = 0;
        long aLastAt = instant;
        Map<Long, Long> bLate = new ConcurrentHashMap<>();
        for (Map.Entry<String, Long> e : received.entrySet()) {
            if (e.getKey().startsWith("a-" + run)) {
                aReceived++;
                aLastAt = Math.max(aLastAt, e.getValue());
            } else if (bDue.containsKey(e.getKey())) {
                long due = bDue.get(e.getKey());
                bLate.put(due, e.getValue() - due);
            }
        }
        return new Round(instant, aReceived, aLastAt, bDue.size(), bLate);
    }

    private static String item(String id, long runAtMs, String url) {
        return "{\"id\":\"" + id + "\",\"runAt\":\"" + Instant.ofEpochMilli(runAtMs) + "\",\"payload\":{\"n\":1},"
                + "\"callback\":{\"url\":\"" + url + "\"}}";
    }

    private static void post(ServiceProcess instance, String topic, List<String> items) {
        Answer answer = new Api(instance.baseUrl(), TestApps.PRODUCER)
                .post("/v1/topics/" + topic + "/jobs/batch", "{\"jobs\":[" + String.join(",", items) + "]}");
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        assertThat(answer.raw().body()).doesNotContain("\"status\":4", "\"status\":5");
    }
}
