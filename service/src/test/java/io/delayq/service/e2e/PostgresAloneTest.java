package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.postgres.testing.EmbeddedPostgres;
import io.delayq.postgres.testing.TestPostgres;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Reply;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.service.support.TestApps.ADMIN;
import static io.delayq.service.support.TestApps.PRODUCER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment on PostgreSQL alone: {@code store: {type: postgres}} and no archive block (postgres-alone.yml), so the
 * archive is the PostgreSQL one on the store's database. The README's tour runs end to end — schedule, callback,
 * retries, dead letter, replay — while no Redis and no MongoDB-protocol server runs: nothing listens on their
 * embedded ports ({@value #EMBEDDED_REDIS_PORT}, {@value #EMBEDDED_MONGO_PORT}) and no {@code redis-server} is a child
 * of this JVM. And the archive's outage: with the archive on a PostgreSQL server of its own that goes away while jobs
 * die, the store's outbox holds them, the health check says so, and every dead letter arrives once it is back.
 */
class PostgresAloneTest {
    static final int EMBEDDED_REDIS_PORT = 6390;
    static final int EMBEDDED_MONGO_PORT = 27027;
    /** Topics whose callbacks answer 500; the others get 200. */
    private static final Set<String> FAILING = ConcurrentHashMap.newKeySet();
    private static final CallbackReceiver RECEIVER = receiver();

    private static CallbackReceiver receiver() {
        CallbackReceiver receiver = new CallbackReceiver();
        receiver.answer(r -> FAILING.contains(r.topic()) ? Reply.status(500) : Reply.ok());
        return receiver;
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @Test
    void theToursRunsWithNoRedisAndNoMongoServer() throws Exception {
        assertThat(listening(EMBEDDED_REDIS_PORT)).as("port %d must be free before the test: something else holds it",
                EMBEDDED_REDIS_PORT).isFalse();
        assertThat(listening(EMBEDDED_MONGO_PORT)).as("port %d must be free before the test: something else holds it",
                EMBEDDED_MONGO_PORT).isFalse();
        // Other tests in this JVM may have started the shared test Redis: only a redis started by the service counts.
        Set<Long> redisBefore = redisChildren();
        DropwizardTestSupport<DelayqConfiguration> service = service(
                ConfigOverride.config("store.database.url", TestPostgres::sharedJdbcUrl),
                ConfigOverride.config("store.database.user", TestPostgres::user),
                ConfigOverride.config("store.database.password", TestPostgres::password));
        service.before();
        try {
            assertThat(listening(EMBEDDED_REDIS_PORT)).as("an embedded Redis").isFalse();
            assertThat(listening(EMBEDDED_MONGO_PORT)).as("an embedded MongoDB-protocol archive").isFalse();
            assertThat(redisChildren()).as("redis-server processes started by the service")
                    .isSubsetOf(redisBefore);
            JsonNode health = admin(service).get("/healthcheck").json();
            assertThat(health.get("archive").get("message").asText()).contains("PostgreSQL");

            Api producer = api(service, PRODUCER);
            String topic = newTopic();
            Answer scheduled = producer.post("/v1/topics/" + topic + "/jobs",
                    "{\"id\":\"welcome-1\",\"delayMs\":200,\"payload\":{\"user\":42},"
                            + "\"callback\":{\"url\":\"" + RECEIVER.url("/hook") + "\"}}");
            assertThat(scheduled.status()).as(scheduled.toString()).isEqualTo(201);
            Await.until("the callback arrives", () -> !attemptsOf(topic, "welcome-1").isEmpty());
            Await.until("the job reads SUCCEEDED", () -> "SUCCEEDED".equals(
                    producer.get("/v1/topics/" + topic + "/jobs/welcome-1").json().get("state").asText()));

            String failing = newTopic();
            FAILING.add(failing);
            assertThat(producer.post("/v1/topics/" + failing + "/jobs", failingJob("order-7")).status()).isEqualTo(201);
            Api admin = api(service, ADMIN);
            Await.until("the dead letter is listed", () -> admin.get("/v1/admin/dead-letters?topic=" + failing)
                    .json().get("items").size() == 1);
            assertThat(attemptsOf(failing, "order-7")).containsExactly("1", "2");

            FAILING.remove(failing);
            Answer replay = admin.post("/v1/admin/dead-letters/" + failing + "/order-7/replay", "{}");
            assertThat(replay.status()).as(replay.toString()).isEqualTo(201);
            String replayId = replay.json().get("replay").get("newJobId").asText();
            Await.until("the replay is delivered", () -> !attemptsOf(failing, replayId).isEmpty());
            assertThat(attemptsOf(failing, replayId)).containsExactly("1");
        } finally {
            service.after();
        }
    }

    @Test
    void deadLettersWaitInTheOutboxWhileTheArchivesDatabaseIsDownAndAllArriveWhenItIsBack(@TempDir Path dir)
            throws Exception {
        try (EmbeddedPostgres archiveServer = TestPostgres.startPrivate(dir)) {
            DropwizardTestSupport<DelayqConfiguration> service = service(
                    ConfigOverride.config("store.database.url", TestPostgres::sharedJdbcUrl),
                    ConfigOverride.config("store.database.user", TestPostgres::user),
                    ConfigOverride.config("store.database.password", TestPostgres::password),
                    ConfigOverride.config("archive.type", "postgres"),
                    ConfigOverride.config("archive.database.url", archiveServer.jdbcUrl("postgres")),
                    ConfigOverride.config("archive.database.user", archiveServer.user()),
                    ConfigOverride.config("archive.database.password", ""));
            service.before();
            try {
                Api producer = api(service, PRODUCER);
                Api admin = api(service, ADMIN);
                Api adminPort = admin(service);
                String topic = newTopic();
                FAILING.add(topic);
                archiveServer.stop();

                int jobs = 20;
                for (int i = 0; i < jobs; i++) {
                    assertThat(producer.post("/v1/topics/" + topic + "/jobs", failingJob("j" + i)).status())
                            .isEqualTo(201);
                }
                Await.until("every job is dead and waits in the outbox", () -> backlog(adminPort) >= jobs);
                Await.until("the archive's health check says it is down",
                        () -> !adminPort.get("/healthcheck").json().get("archive").get("healthy").asBoolean());
                assertThat(RECEIVER.received(r -> topic.equals(r.topic()))).hasSize(2 * jobs);

                archiveServer.restart();

                Await.until("every dead letter arrives", () -> letters(admin, topic) == jobs);
                Await.until("the outbox is empty", () -> backlog(adminPort) == 0);
                assertThat(adminPort.get("/healthcheck").json().get("archive").get("healthy").asBoolean()).isTrue();
            } finally {
                service.after();
            }
        }
    }

    private static String failingJob(String id) {
        return "{\"id\":\"" + id + "\",\"payload\":{\"order\":7},\"maxAttempts\":2,"
                + "\"backoff\":{\"type\":\"schedule\",\"delays\":[\"50ms\"]},"
                + "\"callback\":{\"url\":\"" + RECEIVER.url("/hook") + "\"}}";
    }

    private static DropwizardTestSupport<DelayqConfiguration> service(ConfigOverride... overrides) {
        return new DropwizardTestSupport<>(DelayqApplication.class,
                ResourceHelpers.resourceFilePath("postgres-alone.yml"), overrides);
    }

    private static Api api(DropwizardTestSupport<DelayqConfiguration> service, String token) {
        return new Api("http://127.0.0.1:" + service.getLocalPort(), token);
    }

    private static Api admin(DropwizardTestSupport<DelayqConfiguration> service) {
        return new Api("http://127.0.0.1:" + service.getAdminPort(), null);
    }

    /** How many dead letters the archive lists for the topic; -1 while it answers 503 (its pool reconnecting). */
    private static int letters(Api admin, String topic) {
        Answer page = admin.get("/v1/admin/dead-letters?limit=100&topic=" + topic);
        return page.status() == 200 ? page.json().get("items").size() : -1;
    }

    private static long backlog(Api adminPort) {
        return adminPort.get("/metrics").json().get("gauges").get("delayq.archive.backlog").get("value").asLong();
    }

    /** The {@code Delayq-Attempt} of every callback the receiver got for this job, in arrival order. */
    private static List<String> attemptsOf(String topic, String id) {
        return RECEIVER.received(r -> topic.equals(r.topic()) && id.equals(r.id())).stream()
                .map(r -> r.header("Delayq-Attempt")).toList();
    }

    private static Set<Long> redisChildren() {
        return ProcessHandle.current().descendants()
                .filter(p -> p.info().command().orElse("").contains("redis-server"))
                .map(ProcessHandle::pid).collect(java.util.stream.Collectors.toSet());
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
