package io.delayq.service.breaker;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.breaker.Origins;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Reply;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only failures that say something about the origin count toward opening its circuit (issue 26, finding 6): a
 * producer whose jobs time out after 100 ms against a receiver that answers in 1 s must not open the circuit that
 * another team's jobs to the same origin go through, and a {@code 503} with {@code Retry-After} is back-pressure. A
 * timeout of an attempt allowed at least {@code breaker.minTimeout} (5 s by default) and a plain 503 still count. Runs on both stores (e2e-on-postgres): the circuits are in the store.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class OriginFailuresTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.breaker.enabled", "true"));
    private static final String BREAKER = "{\"failureThreshold\": 2, \"probeInterval\": \"30s\"}";

    @Test
    void timeoutsShorterThanMinTimeoutAreTheJobsFailureNotTheOrigins() {
        try (CallbackReceiver slow = new CallbackReceiver()) {
            slow.answer(r -> new Reply(200, 1_000, Map.of()));
            String attacker = topic();
            for (int i = 0; i < 4; i++) {
                schedule(attacker, "short-" + i, slow.url("/work"), "100ms", 1);
            }
            for (int i = 0; i < 4; i++) {
                awaitState(attacker, "short-" + i, "DEAD");
            }
            assertThat(java.util.stream.IntStream.range(0, 4).mapToObj(i -> job(attacker, "short-" + i).path("history")
                    .toString())).as("the attempts timed out").anyMatch(h -> h.contains("did not answer within"));

            String victim = topic();
            schedule(victim, "real", slow.url("/work"), "5s", 3);
            JsonNode done = awaitState(victim, "real", "SUCCEEDED");
            assertThat(done.path("attempts").asInt()).isEqualTo(1);
            assertThat(done.path("history").toString()).as("never held").doesNotContain("\"held\"");
            assertThat(circuit(slow).path("state").asText("CLOSED")).isEqualTo("CLOSED");
            assertThat(circuit(slow).path("consecutiveFailures").asInt(0)).isZero();
        }
    }

    @Test
    void a503WithRetryAfterIsBackPressureAndAPlain503AFailure() {
        try (CallbackReceiver busy = new CallbackReceiver(); CallbackReceiver down = new CallbackReceiver()) {
            busy.answer(r -> new Reply(503, 0, Map.of("Retry-After", "1")));
            down.answer(r -> Reply.status(503));
            String topic = topic();
            for (int i = 0; i < 3; i++) {
                schedule(topic, "busy-" + i, busy.url("/busy"), "5s", 1);
                schedule(topic, "down-" + i, down.url("/down"), "5s", 1);
            }
            for (int i = 0; i < 3; i++) {
                // back-pressure postpones without using the only attempt: the job is never dead of it
                String id = "busy-" + i;
                Await.until(id + " postponed twice", Duration.ofSeconds(20),
                        () -> job(topic, id).path("history").size() >= 2);
                JsonNode postponed = job(topic, id);
                assertThat(postponed.path("state").asText()).as("%s", postponed).isIn("SCHEDULED", "LEASED");
                assertThat(postponed.path("history").get(0).path("httpStatus").asInt()).isEqualTo(503);
                assertThat(postponed.path("history").get(0).path("held").asBoolean()).isTrue();
            }
            assertThat(circuit(busy).path("state").asText("CLOSED")).as("%s", circuit(busy)).isEqualTo("CLOSED");
            assertThat(circuit(busy).path("consecutiveFailures").asInt(0)).isZero();
            Await.until("the plain 503s open their origin's circuit", Duration.ofSeconds(20),
                    () -> circuit(down).path("state").asText().equals("OPEN"));
        }
    }

    @Test
    void aTimeoutOfAnAttemptAllowedAtLeastMinTimeoutCounts() {
        try (CallbackReceiver hanging = new CallbackReceiver()) {
            hanging.answer(r -> new Reply(200, 9_000, Map.of()));
            String topic = topic();
            schedule(topic, "long-0", hanging.url("/hang"), "5500ms", 1);
            schedule(topic, "long-1", hanging.url("/hang"), "5500ms", 1);
            Await.until("two timeouts of 5.5 s attempts open the circuit", Duration.ofSeconds(20),
                    () -> circuit(hanging).path("state").asText().equals("OPEN"));
        }
    }

    private static String topic() {
        String topic = TestApps.topic();
        Answer put = TestApps.api(APP).as(TestApps.ADMIN).put("/v1/topics/" + topic, "{\"breaker\": " + BREAKER + "}");
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        return topic;
    }

    private static void schedule(String topic, String id, String url, String timeout, int maxAttempts) {
        Answer created = TestApps.api(APP).post("/v1/topics/" + topic + "/jobs", """
                {"id": "%s", "payload": {}, "callback": {"url": "%s"}, "timeout": "%s", "maxAttempts": %d}"""
                .formatted(id, url, timeout, maxAttempts));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private static JsonNode job(String topic, String id) {
        return TestApps.api(APP).get("/v1/topics/" + topic + "/jobs/" + id).json();
    }

    private static JsonNode awaitState(String topic, String id, String state) {
        Await.until(id + " " + state, Duration.ofSeconds(20), () -> job(topic, id).path("state").asText().equals(state));
        return job(topic, id);
    }

    /** The origin's circuit as operators see it, or a missing node when it has none. */
    private static JsonNode circuit(CallbackReceiver receiver) {
        String origin = Origins.of(receiver.url("/"));
        Api viewer = TestApps.api(APP).as("viewer-token");
        for (JsonNode c : viewer.get("/v1/admin/circuits").json().path("items")) {
            if (origin.equals(c.path("origin").asText())) {
                return c;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
}
