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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Producers through a failover (issue 15): one service instance on a real Redis Cluster of 3 masters with two replicas
 * each ({@code minReplicas: 1}; two replicas so that the promoted one still has a replica and writes to its slots are
 * accepted again without the old master), a topic of 3 partitions, one per master. Four producers post single jobs
 * while a master is paused with SIGSTOP, killed, and replaced by the replica the cluster elects. Every POST is answered
 * 2xx or 503 {@code application/problem+json} saying what to do, never a 500, and none takes longer than the client's
 * 15 s timeout; after the promotion jobs on the failed master's partition are accepted again; every acknowledged job
 * is delivered. A producer that gets 503 posts the same id again, as a client should (enqueue is idempotent).
 */
@Tag("slow") // a Redis Cluster failover under producers (CONTRIBUTING.md: the fast run leaves it out)
class ClusterFailoverProducersTest {
    private static final int PARTITIONS = 3;
    private static final int PRODUCERS = 4;
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(15);

    @Test
    void producersGetOnly2xxOr503ProblemsThroughAFailoverAndEveryAcknowledgedJobIsDelivered() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(3, 2, 1_000);
             CallbackReceiver receiver = new CallbackReceiver()) {
            String seeds = "redis://" + cluster.nodes().stream().map(n -> n.getHost() + ":" + n.getPort())
                    .collect(Collectors.joining(","));
            DropwizardTestSupport<DelayqConfiguration> service = new DropwizardTestSupport<>(
                    DelayqApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
                    ConfigOverride.config("store.type", "redis"),
                    ConfigOverride.config("store.uri", seeds),
                    ConfigOverride.config("store.cluster", "true"),
                    ConfigOverride.config("store.partitions", Integer.toString(PARTITIONS)),
                    ConfigOverride.config("store.minReplicas", "1"));
            service.before();
            try {
                Api api = new Api("http://127.0.0.1:" + service.getLocalPort(), TestApps.PRODUCER);
                String topic = TestApps.topic();
                String path = "/failover/" + topic;
                String callback = receiver.url(path);
                // the spread layout puts partition p of 3 in the p-th third of the slots: on master p as formed
                EmbeddedRedis master = cluster.masters().get(1);

                Set<String> acknowledged = ConcurrentHashMap.newKeySet();
                List<String> wrong = new CopyOnWriteArrayList<>();
                List<String> problems = new CopyOnWriteArrayList<>();
                AtomicLong longestMs = new AtomicLong();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> producers = new ArrayList<>();
                for (int t = 0; t < PRODUCERS; t++) {
                    int producer = t;
                    Thread thread = new Thread(() -> {
                        for (int n = 0; !stop.get(); n++) {
                            String id = "p" + producer + "-" + n;
                            String body = job(id, callback);
                            // a 503 is retried with the same job until it is answered 2xx (or the test stops)
                            while (!stop.get() && !post(api, topic, id, body, acknowledged, wrong, problems,
                                    longestMs)) {
                                Await.sleep(100);
                            }
                        }
                    }, "producer-" + t);
                    thread.start();
                    producers.add(thread);
                }

                // warm (first requests, connections to every node), then a second of steady traffic before the pause
                Await.until("producers acknowledged", 20_000, () -> acknowledged.size() >= 20 || !wrong.isEmpty());
                Await.sleep(1_000);
                int beforePause = acknowledged.size();
                signal("STOP", master);
                long pausedAt = System.nanoTime();
                Await.sleep(1_500);
                master.kill();
                EmbeddedRedis promoted = awaitPromotion(cluster.replicasOf(master), 15_000);
                long promotedMs = (System.nanoTime() - pausedAt) / 1_000_000;
                // jobs of the failed master's partition are accepted again
                long resumedMs = -1;
                for (int i = 0; resumedMs < 0 && System.nanoTime() - pausedAt < 30_000_000_000L; i++) {
                    String id = idInPartition("probe-" + i, 1);
                    if (post(api, topic, id, job(id, callback), acknowledged, wrong, problems, longestMs)) {
                        resumedMs = (System.nanoTime() - pausedAt) / 1_000_000;
                    } else {
                        Await.sleep(100);
                    }
                }
                Await.sleep(2_000);
                stop.set(true);
                for (Thread t : producers) {
                    t.join(CLIENT_TIMEOUT.toMillis() + 5_000);
                }

                Await.until("every acknowledged job delivered", 60_000, () -> delivered(receiver, path)
                        .containsAll(acknowledged));
                System.out.printf("ClusterFailoverProducersTest: %d jobs acknowledged (%d before the pause), %d answers"
                        + " 503, longest POST %d ms; replica on port %d promoted %d ms after the pause, the failed"
                        + " master's partition accepted jobs again %d ms after it; a 503 said: %s%n",
                        acknowledged.size(), beforePause, problems.size(), longestMs.get(), promoted.port(), promotedMs,
                        resumedMs, problems.isEmpty() ? "-" : problems.get(0));
                assertThat(wrong).as("answers other than 2xx and 503 problem+json, or POSTs that hung").isEmpty();
                assertThat(longestMs.get()).as("longest POST, ms").isLessThan(CLIENT_TIMEOUT.toMillis());
                assertThat(problems).as("the paused master was noticed by producers").isNotEmpty();
                assertThat(resumedMs).as("ms from the pause until the failed master's partition accepts jobs again")
                        .isBetween(0L, 10_000L);
                assertThat(acknowledged.size()).as("jobs acknowledged after the failover").isGreaterThan(beforePause);
            } finally {
                service.after();
            }
        }
    }

    /**
     * Posts one job; true when acknowledged (2xx). A 503 must be problem+json with a detail a person can act on;
     * anything else, or no answer within the client timeout, is recorded as wrong.
     */
    private static boolean post(Api api, String topic, String id, String body, Set<String> acknowledged,
                                List<String> wrong, List<String> problems, AtomicLong longestMs) {
        HttpRequest.Builder request = api.request("/v1/topics/" + topic + "/jobs").timeout(CLIENT_TIMEOUT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        long started = System.nanoTime();
        Answer answer;
        try {
            answer = api.send(request);
        } catch (UncheckedIOException e) {
            wrong.add(id + ": no answer within " + CLIENT_TIMEOUT + " (" + e.getCause() + ")");
            return false;
        } finally {
            longestMs.accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
        }
        if (answer.status() == 201 || answer.status() == 200) {
            acknowledged.add(id);
            return true;
        }
        String type = String.valueOf(answer.contentType());
        if (answer.status() == 503 && type.startsWith("application/problem+json") && answer.json() != null
                && answer.json().path("status").asInt() == 503 && answer.detail().contains("may or may not")
                && answer.detail().contains("same id")) {
            problems.add(answer.detail());
        } else {
            wrong.add(id + ": " + answer.status() + " " + type + " " + answer.raw().body());
        }
        return false;
    }

    /** A job due 0.1–1 s after it is accepted; the same id must be posted with the same body to be idempotent. */
    private static String job(String id, String callback) {
        long delayMs = 100 + ThreadLocalRandom.current().nextLong(900);
        return "{\"id\":\"" + id + "\",\"delayMs\":" + delayMs + ",\"payload\":{\"id\":\"" + id
                + "\"},\"callback\":{\"url\":\"" + callback + "\"}}";
    }

    private static Set<String> delivered(CallbackReceiver receiver, String path) {
        return receiver.received(r -> r.path().equals(path)).stream().map(Received::id).collect(Collectors.toSet());
    }

    /** The replica the cluster promoted (it answers role:master), waiting at most {@code timeoutMs}. */
    private static EmbeddedRedis awaitPromotion(List<EmbeddedRedis> replicas, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            for (EmbeddedRedis replica : replicas) {
                try (Jedis node = new Jedis("127.0.0.1", replica.port())) {
                    if (node.info("replication").contains("role:master")) {
                        return replica;
                    }
                }
            }
            Await.sleep(100);
        }
        throw new AssertionError("no replica of the killed master was promoted within " + timeoutMs + " ms");
    }

    /** An id starting with {@code prefix} that the store puts in {@code partition} (CRC-32 of the id mod P). */
    private static String idInPartition(String prefix, int partition) {
        for (int i = 0; ; i++) {
            String id = prefix + "-" + i;
            CRC32 crc = new CRC32();
            crc.update(id.getBytes(StandardCharsets.UTF_8));
            if (crc.getValue() % PARTITIONS == partition) {
                return id;
            }
        }
    }

    private static void signal(String signal, EmbeddedRedis node) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.pid())).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
    }
}
