package io.delayq.service.admin;

import com.mongodb.client.MongoClients;
import com.sun.net.httpserver.HttpServer;
import io.delayq.core.Attempt;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.OutboxEntry;
import io.delayq.mongo.MongoJobArchive;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static io.delayq.service.support.TestApps.ADMIN;
import static io.delayq.service.support.TestApps.PRODUCER;
import static io.delayq.service.admin.AdminFixtures.await;
import static io.delayq.service.admin.AdminFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole service on the embedded archive: a job whose callback keeps failing shows up as a dead letter with its
 * attempts, a replay reaches a real HTTP receiver as attempt 1, and the admin endpoints want an admin token.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DeadLettersIntegrationTest {
    private static final int MONGO_PORT = freePort();
    private static final Receiver RECEIVER = Receiver.start();
    private static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("archive.type", "mongo"),
            ConfigOverride.config("archive.embedded.port", String.valueOf(MONGO_PORT)),
            ConfigOverride.config("archive.embedded.persistent", "false"));

    private static Api api(String token) {
        return new Api("http://127.0.0.1:" + APP.getLocalPort(), token);
    }

    @Test
    void aJobThatKeepsFailingIsADeadLetterAndItsReplayArrivesAsAttemptOne() {
        String topic = newTopic();
        Api admin = api(ADMIN);
        RECEIVER.failFor(topic);
        String job = "{\"id\":\"order-7\",\"payload\":{\"order\":7},\"maxAttempts\":2,"
                + "\"backoff\":{\"type\":\"schedule\",\"delays\":[\"50ms\"]},"
                + "\"callback\":{\"url\":\"" + RECEIVER.url() + "\"}}";
        assertThat(api(PRODUCER).post("/v1/topics/" + topic + "/jobs", job).status()).isEqualTo(201);

        await("the dead letter is listed", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().get("items").size() == 1);
        Answer letter = admin.get("/v1/admin/dead-letters/" + topic + "/order-7");
        assertThat(letter.status()).isEqualTo(200);
        assertThat(letter.json().get("attempts").asInt()).isEqualTo(2);
        assertThat(letter.json().get("job").get("history")).hasSize(2)
                .allSatisfy(a -> assertThat(a.get("httpStatus").asInt()).isEqualTo(500));

        RECEIVER.succeedFor(topic);
        Answer replay = admin.post("/v1/admin/dead-letters/" + topic + "/order-7/replay", "{}");
        Answer doubleClick = admin.post("/v1/admin/dead-letters/" + topic + "/order-7/replay", "{}");

        assertThat(replay.status()).as(replay.toString()).isEqualTo(201);
        assertThat(doubleClick.status()).as(doubleClick.toString()).isEqualTo(200);
        await("the replay is delivered", () -> RECEIVER.delivered(topic, "order-7:r1"));
        assertThat(RECEIVER.attemptsOf(topic, "order-7:r1")).containsExactly("1");
        assertThat(RECEIVER.attemptsOf(topic, "order-7:r2")).isEmpty();

        assertThat(admin.delete("/v1/admin/dead-letters/" + topic + "/order-7").status()).isEqualTo(204);
        assertThat(admin.get("/v1/admin/dead-letters/" + topic + "/order-7").status()).isEqualTo(404);
    }

    @Test
    void aJobTheStoreForgotIsStillFoundInTheArchive() {
        String topic = newTopic();
        long now = System.currentTimeMillis();
        Job gone = new Job(topic, "old-1", "{\"a\":1}", now - 5_000, JobState.DEAD, 1, 1, null, null, null, false,
                Delivery.PULL, now - 6_000, now - 4_000, "HTTP 500", List.of(new Attempt(1, now - 4_000, "HTTP 500", 500)));
        try (var client = MongoClients.create("mongodb://127.0.0.1:" + MONGO_PORT)) {
            new MongoJobArchive(client.getDatabase("delayq"), Duration.ofDays(1))
                    .write(List.of(new OutboxEntry("x", gone)));
        }

        Answer job = api(PRODUCER).get("/v1/topics/" + topic + "/jobs/old-1");

        assertThat(job.status()).as(job.toString()).isEqualTo(200);
        assertThat(job.json().get("state").asText()).isEqualTo("DEAD");
        assertThat(job.json().get("payload").get("a").asInt()).isEqualTo(1);
        assertThat(api(PRODUCER).get("/v1/topics/" + topic + "/jobs/never").status()).isEqualTo(404);
    }

    @Test
    void adminEndpointsWantAnAdminToken() {
        assertThat(api(null).get("/v1/admin/dead-letters").status()).isEqualTo(401);
        assertThat(api(PRODUCER).get("/v1/admin/dead-letters").status()).isEqualTo(403);
        assertThat(api(PRODUCER).post("/v1/admin/dead-letters/t-x/y/replay", "{}").status()).isEqualTo(403);
        assertThat(api(PRODUCER).post("/v1/admin/dead-letters/replay", "{}").status()).isEqualTo(403);
        assertThat(api("wrong").delete("/v1/admin/dead-letters/t-x/y").status()).isEqualTo(401);
    }

    @Test
    void theArchiveHasAHealthCheckAndTheBacklogAGauge() {
        Api adminPort = new Api("http://127.0.0.1:" + APP.getAdminPort(), null);
        Answer health = adminPort.get("/healthcheck");
        Answer metrics = adminPort.get("/metrics");

        assertThat(health.json().get("archive").get("healthy").asBoolean()).isTrue();
        assertThat(metrics.json().get("gauges").has("delayq.archive.backlog")).isTrue();
    }

    private static int freePort() {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A real HTTP receiver: answers 500 for topics told to fail, 200 otherwise, and records each delivery. */
    static final class Receiver {
        record Delivered(String topic, String id, String attempt) {
        }

        private final HttpServer server;
        private final ConcurrentLinkedQueue<Delivered> delivered = new ConcurrentLinkedQueue<>();
        private final java.util.Set<String> failing = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final AtomicInteger requests = new AtomicInteger();

        private Receiver(HttpServer server) {
            this.server = server;
        }

        static Receiver start() {
            try {
                HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
                Receiver receiver = new Receiver(server);
                server.createContext("/", exchange -> {
                    exchange.getRequestBody().readAllBytes();
                    String topic = exchange.getRequestHeaders().getFirst("Delayq-Topic");
                    receiver.requests.incrementAndGet();
                    receiver.delivered.add(new Delivered(topic, exchange.getRequestHeaders().getFirst("Delayq-Id"),
                            exchange.getRequestHeaders().getFirst("Delayq-Attempt")));
                    exchange.sendResponseHeaders(receiver.failing.contains(topic) ? 500 : 200, -1);
                    exchange.close();
                });
                server.start();
                return receiver;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
        }

        void failFor(String topic) {
            failing.add(topic);
        }

        void succeedFor(String topic) {
            failing.remove(topic);
        }

        boolean delivered(String topic, String id) {
            return !attemptsOf(topic, id).isEmpty();
        }

        List<String> attemptsOf(String topic, String id) {
            return delivered.stream().filter(d -> topic.equals(d.topic()) && id.equals(d.id()))
                    .map(Delivered::attempt).toList();
        }
    }
}
