package io.delayq.service.e2e;

import io.delayq.core.testing.Await;
import io.delayq.redis.EmbeddedRedis;
import io.delayq.redis.testing.EmbeddedCluster;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scale-out on a real Redis Cluster (issue 15): 3 masters with a replica each, formed by the test from the bundled
 * redis-server ({@link EmbeddedCluster}), and 3 service instances on it with {@code minReplicas: 1} and a topic of 8
 * partitions. 20,000 jobs, posted in batches spread over the instances and due within a few seconds, reach a real HTTP
 * receiver: none lost, none delivered twice, and never one job in two deliveries at once (what two leases on one job
 * would cause). The receiver holds every callback a few milliseconds, so that a second delivery of a job during its
 * first would be seen. Runs on Redis whatever {@code -Ddelayq.test.store} says: it is about Redis Cluster.
 */
@Tag("slow") // a Redis Cluster formed and scaled out (CONTRIBUTING.md: the fast run leaves it out)
class ClusterScaleOutTest {
    private static final int JOBS = 20_000;
    private static final int BATCH = 500;
    private static final int INSTANCES = 3;
    private static final int PARTITIONS = 8;
    /** How long the receiver holds each callback: a window in which a second delivery of the job would overlap. */
    private static final long HOLD_MS = 3;

    @Test
    void threeInstancesDeliverTwentyThousandJobsNoneLostNoneHeldByTwoLeases() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(3, 1, 5_000);
             CallbackReceiver receiver = new CallbackReceiver()) {
            String seeds = "redis://" + cluster.nodes().stream().map(n -> n.getHost() + ":" + n.getPort())
                    .collect(Collectors.joining(","));
            Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
            receiver.answer(r -> {
                // a job in two deliveries at once: this one arrived while another of the same job was still held
                AtomicInteger held = inFlight.computeIfAbsent(r.id(), id -> new AtomicInteger());
                if (held.incrementAndGet() > 1) {
                    overlaps.add(r.id() + " (attempt " + r.header("Delayq-Attempt") + ")");
                }
                Await.sleep(HOLD_MS);
                held.decrementAndGet();
                return CallbackReceiver.Reply.ok();
            });

            List<DropwizardTestSupport<DelayqConfiguration>> instances = new ArrayList<>();
            try {
                for (int i = 0; i < INSTANCES; i++) {
                    DropwizardTestSupport<DelayqConfiguration> instance = new DropwizardTestSupport<>(
                            DelayqApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
                            ConfigOverride.config("store.type", "redis"),
                            ConfigOverride.config("store.uri", seeds),
                            ConfigOverride.config("store.cluster", "true"),
                            ConfigOverride.config("store.partitions", Integer.toString(PARTITIONS)),
                            ConfigOverride.config("store.minReplicas", "1"),
                            ConfigOverride.config("limits.maxBatchSize", Integer.toString(BATCH)),
                            ConfigOverride.config("limits.maxRequestBytes", "1MiB"));
                    instance.before();
                    instances.add(instance);
                }
                String topic = TestApps.topic();
                String callback = receiver.url("/cluster/" + topic);
                long postedFrom = System.currentTimeMillis();
                post(instances, topic, callback);
                long postedIn = System.currentTimeMillis() - postedFrom;

                Await.until("all " + JOBS + " jobs delivered", 90_000,
                        () -> distinctIds(receiver).size() >= JOBS);
                Await.sleep(2_000); // sweepInterval is 500 ms: a redelivery would show up by now
                List<Received> got = receiver.received(r -> r.path().equals("/cluster/" + topic));

                Set<String> ids = got.stream().map(Received::id).collect(Collectors.toSet());
                List<String> lost = new ArrayList<>();
                for (int id = 0; id < JOBS; id++) {
                    if (!ids.contains(Integer.toString(id))) {
                        lost.add(Integer.toString(id));
                    }
                }
                assertThat(lost).as("jobs never delivered (posted in %d ms)", postedIn).isEmpty();
                assertThat(overlaps).as("jobs delivered again while their first delivery was in flight").isEmpty();
                Map<String, Long> twice = got.stream().collect(Collectors.groupingBy(Received::id, Collectors.counting()));
                twice.values().removeIf(n -> n == 1);
                assertThat(twice).as("jobs delivered more than once (a lease expired? the timeout is 60 s)").isEmpty();
                assertThat(got).extracting(r -> r.header("Delayq-Attempt")).containsOnly("1");

                for (DropwizardTestSupport<DelayqConfiguration> instance : instances) {
                    long delivered = instance.getEnvironment().metrics().meter("delayq.delivery.delivered").getCount();
                    assertThat(delivered).as("deliveries by the instance on port %d", instance.getLocalPort())
                            .isPositive();
                }
                for (EmbeddedRedis master : cluster.masters()) {
                    assertThat(scriptCalls(master)).as("script calls on the master on port %d: the topic's 8 partitions"
                            + " use every master", master.port()).isGreaterThanOrEqualTo(JOBS / BATCH);
                }
            } finally {
                TestApps.stopAll(instances);
            }
        }
    }

    /** {@link #JOBS} jobs due 1–4 s ahead, in batches of {@link #BATCH} posted from 3 threads, each to the next instance. */
    private static void post(List<DropwizardTestSupport<DelayqConfiguration>> instances, String topic, String callback)
            throws Exception {
        ExecutorService producers = Executors.newFixedThreadPool(3);
        try {
            List<Future<Answer>> answers = new ArrayList<>();
            for (int from = 0; from < JOBS; from += BATCH) {
                Api api = new Api("http://127.0.0.1:" + instances.get(from / BATCH % INSTANCES).getLocalPort(),
                        TestApps.PRODUCER);
                String body = batch(from, callback);
                answers.add(producers.submit(() -> api.post("/v1/topics/" + topic + "/jobs/batch", body)));
            }
            for (Future<Answer> answer : answers) {
                Answer a = answer.get();
                assertThat(a.status()).as(a.toString()).isEqualTo(200);
            }
        } finally {
            producers.shutdownNow();
        }
    }

    private static String batch(int from, String callback) {
        StringBuilder b = new StringBuilder("{\"jobs\":[");
        for (int id = from; id < from + BATCH; id++) {
            long delayMs = 1_000 + ThreadLocalRandom.current().nextLong(3_000);
            b.append(id == from ? "" : ",").append("{\"id\":\"").append(id).append("\",\"delayMs\":").append(delayMs)
                    .append(",\"payload\":{\"n\":").append(id).append("},\"timeout\":\"60s\",\"callback\":{\"url\":\"")
                    .append(callback).append("\"}}");
        }
        return b.append("]}").toString();
    }

    private static Set<String> distinctIds(CallbackReceiver receiver) {
        return receiver.received().stream().map(Received::id).collect(Collectors.toSet());
    }

    /** EVALSHA calls the master has served (INFO commandstats). */
    private static long scriptCalls(EmbeddedRedis master) {
        try (Jedis jedis = new Jedis("127.0.0.1", master.port())) {
            Map<String, String> stats = new HashMap<>();
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    stats.put(line.substring(0, colon), line.substring(colon + 1));
                }
            }
            String evalsha = stats.getOrDefault("cmdstat_evalsha", "calls=0,");
            return Long.parseLong(evalsha.substring("calls=".length(), evalsha.indexOf(',')));
        }
    }
}
