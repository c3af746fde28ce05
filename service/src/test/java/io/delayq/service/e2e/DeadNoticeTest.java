package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.SignatureSpec;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.delayq.service.support.TestApps.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dead notices end to end (issue 16): a job whose callback keeps failing dies, and its onDead target — a real HTTP
 * receiver — gets exactly one signed notice, verified as the documentation tells a receiver to ({@link SignatureSpec}); a topic's onDead applies to
 * jobs without their own; a notice target that always answers 500 is tried {@code deadNotices.maxAttempts} times and
 * the dead letter records it FAILED, with no further attempt. Runs on both stores (service/pom.xml).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class DeadNoticeTest {
    private static final String SECRET = "test-secret"; // delivery.signingSecret of test-config.yml
    private static final int NOTICE_ATTEMPTS = 3;
    private static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("deadNotices.maxAttempts", String.valueOf(NOTICE_ATTEMPTS)),
            ConfigOverride.config("deadNotices.initialBackoff", "100ms"),
            ConfigOverride.config("deadNotices.maxBackoff", "200ms"),
            ConfigOverride.config("deadNotices.timeout", "2s"),
            ConfigOverride.config("deadNotices.pollInterval", "100ms"));
    /** Paths under /fail answer 500, the others 200. */
    private static final CallbackReceiver RECEIVER = new CallbackReceiver();

    private Api admin;
    private String topic;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        admin = TestApps.api(APP).as(ADMIN);
        topic = TestApps.topic();
    }

    @Test
    void aJobThatExhaustsItsAttemptsSendsExactlyOneSignedNotice() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        Answer created = admin.send(admin.request("/v1/topics/" + topic + "/jobs")
                .header("Content-Type", "application/json").header("traceparent", traceparent)
                .POST(HttpRequest.BodyPublishers.ofString("""
                        {"id": "order-7", "payload": {"order": 7, "amount": 1.50},
                         "maxAttempts": 2, "backoff": {"type": "schedule", "delays": ["50ms"]},
                         "callback": {"url": "%s"},
                         "onDead": {"url": "%s", "headers": {"X-Hook-Key": "k1"}}}""".formatted(
                        RECEIVER.url("/fail/jobs/" + topic), RECEIVER.url("/notices/" + topic)))));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);

        JsonNode letter = awaitNotice("order-7", "DELIVERED");
        Received notice = onlyNotice("order-7");
        Await.sleep(1_000); // ten passes of the sender: a delivered notice is not sent again
        assertThat(notices("order-7")).hasSize(1);

        assertThat(verifies(notice))
                .as("signature %s over %s", notice.header("Delayq-Signature"), notice.bodyText()).isTrue();
        assertThat(notice.path()).isEqualTo("/notices/" + topic);
        assertThat(notice.header("Delayq-Event")).isEqualTo("dead");
        assertThat(notice.header("Delayq-Topic")).isEqualTo(topic);
        assertThat(notice.header("Delayq-Notice-Attempt")).isEqualTo("1");
        assertThat(notice.header("X-Hook-Key")).isEqualTo("k1");
        assertThat(notice.header("traceparent")).isEqualTo(traceparent);
        assertThat(notice.bodyText()).contains("\"payload\":{\"order\":7,\"amount\":1.50}"); // verbatim

        JsonNode body = json(notice);
        assertThat(body.path("topic").asText()).isEqualTo(topic);
        assertThat(body.path("id").asText()).isEqualTo("order-7");
        assertThat(body.path("attempts").asInt()).isEqualTo(2);
        assertThat(body.path("maxAttempts").asInt()).isEqualTo(2);
        assertThat(body.path("lastError").asText()).contains("HTTP 500");
        assertThat(body.path("lastStatus").asInt()).isEqualTo(500);
        assertThat(body.path("deadLetter").asText()).isEqualTo(letter.path("key").asText());
        assertThat(Instant.parse(body.path("deadAt").asText())).isEqualTo(Instant.parse(letter.path("deadAt").asText()));

        JsonNode recorded = letter.path("notice");
        assertThat(recorded.path("attempts").asInt()).isEqualTo(1);
        assertThat(Instant.parse(recorded.path("deliveredAt").asText()))
                .isAfterOrEqualTo(Instant.parse(letter.path("deadAt").asText()));
        assertThat(recorded.has("lastError")).as(recorded.toString()).isFalse();
        assertThat(letter.path("job").path("onDead").path("url").asText()).isEqualTo(RECEIVER.url("/notices/" + topic));
    }

    @Test
    void aTopicsOnDeadAppliesToJobsWithoutTheirOwn() {
        Answer settings = admin.put("/v1/topics/" + topic, """
                {"onDead": {"url": "%s"}}""".formatted(RECEIVER.url("/topic-notices/" + topic)));
        assertThat(settings.status()).as(settings.toString()).isEqualTo(200);
        schedule("plain", null);
        schedule("own", RECEIVER.url("/own-notices/" + topic));

        JsonNode plain = awaitNotice("plain", "DELIVERED");
        JsonNode own = awaitNotice("own", "DELIVERED");

        assertThat(onlyNotice("plain").path()).isEqualTo("/topic-notices/" + topic);
        assertThat(onlyNotice("own").path()).isEqualTo("/own-notices/" + topic);
        assertThat(plain.path("job").path("onDead").path("url").asText())
                .as("the target that applied, on the dead letter").isEqualTo(RECEIVER.url("/topic-notices/" + topic));
        assertThat(own.path("job").path("onDead").path("url").asText()).isEqualTo(RECEIVER.url("/own-notices/" + topic));
    }

    @Test
    void aNoticeTargetThatAlwaysFailsIsTriedMaxAttemptsTimesThenRecordedFailed() {
        schedule("doomed", RECEIVER.url("/fail/notices/" + topic));

        JsonNode letter = awaitNotice("doomed", "FAILED");
        Await.sleep(1_500); // well past every backoff (100 ms, 200 ms): nothing more is sent
        List<Received> sent = notices("doomed");

        assertThat(sent).extracting(r -> r.header("Delayq-Notice-Attempt")).containsExactly("1", "2", "3");
        assertThat(sent).allSatisfy(r -> assertThat(verifies(r)).isTrue());
        JsonNode notice = letter.path("notice");
        assertThat(notice.path("attempts").asInt()).isEqualTo(NOTICE_ATTEMPTS);
        assertThat(notice.path("lastStatus").asInt()).isEqualTo(500);
        assertThat(notice.path("lastError").asText()).contains("HTTP 500");
        assertThat(notice.has("deliveredAt")).isFalse();
        assertThat(notice.has("nextAttemptAt")).as("nothing more is due: %s", notice).isFalse();
        assertThat(deadLetter("doomed").path("notice")).isEqualTo(notice);

        Api adminPort = new Api("http://127.0.0.1:" + APP.getAdminPort(), null);
        JsonNode health = adminPort.get("/healthcheck").json().path("dead-notices");
        assertThat(health.path("healthy").asBoolean()).as(health.toString()).isTrue();
        assertThat(health.path("message").asText()).contains("notices keep failing").contains("HTTP 500");
        JsonNode meters = adminPort.get("/metrics").json().path("meters");
        assertThat(meters.path("delayq.notices.given-up").path("count").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(meters.path("delayq.notices.failed").path("count").asLong()).isGreaterThanOrEqualTo(NOTICE_ATTEMPTS);
    }

    /** A job that dies at its first attempt (its callback answers 500), with its own onDead target or none. */
    private void schedule(String id, String onDeadUrl) {
        String onDead = onDeadUrl == null ? "" : ", \"onDead\": {\"url\": \"" + onDeadUrl + "\"}";
        Answer created = admin.post("/v1/topics/" + topic + "/jobs", """
                {"id": "%s", "payload": {"n": 1}, "maxAttempts": 1, "callback": {"url": "%s"}%s}""".formatted(
                id, RECEIVER.url("/fail/jobs/" + topic), onDead));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private JsonNode awaitNotice(String id, String state) {
        Await.until("the dead letter of " + id + " records its notice " + state, Duration.ofSeconds(30),
                () -> state.equals(deadLetter(id).path("notice").path("state").asText()));
        return deadLetter(id);
    }

    private JsonNode deadLetter(String id) {
        Answer answer = admin.get("/v1/admin/dead-letters/" + topic + "/" + id);
        return answer.status() == 200 ? answer.json() : MissingNode.getInstance();
    }

    /** The dead notices the receiver got for a job of this test's topic. */
    private List<Received> notices(String id) {
        return RECEIVER.received(r -> "dead".equals(r.header("Delayq-Event")) && topic.equals(r.topic())
                && id.equals(r.id()));
    }

    private Received onlyNotice(String id) {
        List<Received> notices = notices(id);
        assertThat(notices).as("dead notices of %s", id).hasSize(1);
        return notices.get(0);
    }

    /** The documented receiver check of a dead notice ({@link SignatureSpec}: scheme v2, kind {@code dead}). */
    private static boolean verifies(Received notice) {
        return SignatureSpec.verifies(SECRET, notice.header("Delayq-Signature"), SignatureSpec.DEAD, notice.topic(),
                notice.id(), notice.header("Delayq-Notice-Attempt"), notice.body());
    }

    private static JsonNode json(Received r) {
        try {
            return new ObjectMapper().readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
