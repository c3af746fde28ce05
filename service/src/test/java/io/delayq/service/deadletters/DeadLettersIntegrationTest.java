package io.delayq.service.deadletters;

import com.mongodb.client.MongoClients;
import io.delayq.core.Attempt;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.OutboxEntry;
import io.delayq.core.testing.Await;
import io.delayq.mongo.MongoJobArchive;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Reply;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.service.support.TestApps.ADMIN;
import static io.delayq.service.support.TestApps.PRODUCER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole service on the embedded archive: a job whose callback keeps failing shows up as a dead letter with its
 * attempts, a replay reaches a real HTTP receiver as attempt 1, and the admin endpoints want an admin token.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class DeadLettersIntegrationTest {
    private static final int MONGO_PORT = freePort();
    /** Topics whose callbacks answer 500; the others get 200. */
    private static final Set<String> FAILING = ConcurrentHashMap.newKeySet();
    private static final CallbackReceiver RECEIVER = receiver();
    private static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("archive.type", "mongo"),
            ConfigOverride.config("archive.embedded.port", String.valueOf(MONGO_PORT)),
            ConfigOverride.config("archive.embedded.persistent", "false"));

    private static CallbackReceiver receiver() {
        CallbackReceiver receiver = new CallbackReceiver();
        receiver.answer(r -> FAILING.contains(r.topic()) ? Reply.status(500) : Reply.ok());
        return receiver;
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    private static Api api(String token) {
        return new Api("http://127.0.0.1:" + APP.getLocalPort(), token);
    }

    @Test
    void aJobThatKeepsFailingIsADeadLetterAndItsReplayArrivesAsAttemptOne() {
        String topic = newTopic();
        Api admin = api(ADMIN);
        FAILING.add(topic);
        String job = "{\"id\":\"order-7\",\"payload\":{\"order\":7},\"maxAttempts\":2,"
                + "\"backoff\":{\"type\":\"schedule\",\"delays\":[\"50ms\"]},"
                + "\"callback\":{\"url\":\"" + RECEIVER.url("/hook") + "\"}}";
        assertThat(api(PRODUCER).post("/v1/topics/" + topic + "/jobs", job).status()).isEqualTo(201);

        Await.until("the dead letter is listed", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().get("items").size() == 1);
        Answer letter = admin.get("/v1/admin/dead-letters/" + topic + "/order-7");
        assertThat(letter.status()).isEqualTo(200);
        assertThat(letter.json().get("attempts").asInt()).isEqualTo(2);
        assertThat(letter.json().get("job").get("history")).hasSize(2)
                .allSatisfy(a -> assertThat(a.get("httpStatus").asInt()).isEqualTo(500));

        FAILING.remove(topic);
        Answer replay = admin.post("/v1/admin/dead-letters/" + topic + "/order-7/replay", "{}");
        Answer doubleClick = admin.post("/v1/admin/dead-letters/" + topic + "/order-7/replay", "{}");

        assertThat(replay.status()).as(replay.toString()).isEqualTo(201);
        assertThat(doubleClick.status()).as(doubleClick.toString()).isEqualTo(200);
        String replayId = replay.json().get("replay").get("newJobId").asText();
        String key = letter.json().get("key").asText(); // <topic>/order-7/<createdAt>: the life the replay id names
        assertThat(replayId).isEqualTo("order-7:" + key.substring(key.lastIndexOf('/') + 1) + ":r1");
        assertThat(doubleClick.json().get("replay").get("newJobId").asText()).isEqualTo(replayId);
        Await.until("the replay is delivered", () -> !attemptsOf(topic, replayId).isEmpty());
        assertThat(attemptsOf(topic, replayId)).containsExactly("1");
        assertThat(RECEIVER.received(r -> topic.equals(r.topic()) && r.id().endsWith(":r2"))).isEmpty();

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
            // another writer of the service's embedded archive keeps its job-id directory, as the service's own does
            MongoJobArchive writer = new MongoJobArchive(client.getDatabase("delayq"), Duration.ofDays(1));
            writer.keepJobIdDirectory();
            writer.write(List.of(new OutboxEntry("x", gone)));
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

    /** The {@code Delayq-Attempt} of every callback the receiver got for this job, in arrival order. */
    private static List<String> attemptsOf(String topic, String id) {
        return RECEIVER.received(r -> topic.equals(r.topic()) && id.equals(r.id())).stream()
                .map(r -> r.header("Delayq-Attempt")).toList();
    }

    private static int freePort() {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
