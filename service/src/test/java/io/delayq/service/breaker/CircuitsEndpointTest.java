package io.delayq.service.breaker;

import com.fasterxml.jackson.databind.JsonNode;
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

import java.time.Instant;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A receiver answering 503 opens its origin's circuit: {@code GET /v1/admin/circuits} lists it (operators only), the
 * {@code callback-endpoints} health check stays healthy but says "degraded: circuit open for …", the metrics count it,
 * the jobs are held with a history entry saying why and no attempt used; once the receiver answers 200, a probe closes
 * the circuit and the jobs are delivered.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class CircuitsEndpointTest {
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    /** The receiver's origin, by a name without dots (a configuration override's path splits at dots). */
    static final String ORIGIN = "http://localhost:" + RECEIVER.port();
    /** The receiver's origin carries a configured rate limit (well above what the test sends), shown on its circuit. */
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.breaker.enabled", "true"),
            ConfigOverride.config("delivery.originRateLimits." + ORIGIN + ".perSecond", "500"),
            ConfigOverride.config("delivery.originRateLimits." + ORIGIN + ".burst", "50"));
    private static final int JOBS = 4;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @Test
    void anOpenCircuitIsListedAndReportedAndAProbeClosesIt() throws InterruptedException {
        Api api = TestApps.api(APP);
        Api admin = api.as(TestApps.ADMIN);
        Api viewer = api.as("viewer-token");
        Api adminPort = new Api("http://127.0.0.1:" + APP.getAdminPort(), null);
        String topic = TestApps.topic();
        String origin = ORIGIN;
        RECEIVER.answer(r -> Reply.status(503));
        Answer put = admin.put("/v1/topics/" + topic, """
                {"callback": {"url": "%s"}, "maxAttempts": 10, "backoff": {"type": "schedule", "delays": ["200ms"]},
                 "breaker": {"failureThreshold": 2, "probeInterval": "1s", "maxProbeInterval": "1s"}}"""
                .formatted(ORIGIN + "/down/" + topic));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        for (int i = 0; i < JOBS; i++) {
            assertThat(api.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"j" + i + "\", \"payload\": {}}").status())
                    .isEqualTo(201);
        }

        JsonNode open = awaitCircuit(viewer, origin, c -> c.path("state").asText().equals("OPEN")
                && c.path("heldJobs").asLong() > 0);
        assertThat(open.path("consecutiveFailures").asInt()).as("%s", open).isGreaterThanOrEqualTo(2);
        Instant openedAt = Instant.parse(open.path("openedAt").asText());
        assertThat(Instant.parse(open.path("nextProbeAt").asText())).isAfter(openedAt);
        assertThat(open.path("probeIntervalMs").asLong()).as("%s", open).isEqualTo(1_000);
        assertThat(open.path("rateLimit").path("perSecond").asDouble()).as("the origin's rate limit: %s", open)
                .isEqualTo(500.0);
        assertThat(open.path("rateLimit").path("burst").asInt()).as("%s", open).isEqualTo(50);
        JsonNode limits = viewer.get("/v1/admin/circuits").json().path("originRateLimits");
        assertThat(limits.findValuesAsText("origin")).as("the configured origin limits: %s", limits).contains(origin);
        assertThat(api.get("/v1/admin/circuits").status()).as("a producer").isEqualTo(403);
        assertThat(api.as(null).get("/v1/admin/circuits").status()).as("no token").isEqualTo(401);

        JsonNode health = adminPort.get("/healthcheck").json().path(CallbackEndpointsHealthCheck.NAME);
        assertThat(health.path("healthy").asBoolean()).as("%s", health).isTrue();
        assertThat(health.path("message").asText()).as("%s", health)
                .startsWith("degraded: ")
                .containsPattern(Pattern.quote("circuit open for " + origin + " since ") + "\\S+Z \\(\\d+ jobs held\\)");

        JsonNode metrics = adminPort.get("/metrics").json();
        assertThat(metrics.path("gauges").path("delayq.breaker.open-circuits").path("value").asLong()).isPositive();
        assertThat(metrics.path("meters").path("delayq.breaker.jobs-held").path("count").asLong()).isPositive();
        // at least once: a probe that fails while the test reads (1-s probes) opens it again
        assertThat(metrics.path("meters").path("delayq.breaker.opened").path("count").asLong()).isPositive();
        assertThat(adminPort.get("/metrics/prometheus").raw().body())
                .containsPattern("(?m)^delayq_breaker_origin_open\\{origin=\"" + Pattern.quote(origin) + "\"} 1(\\.0)?$");

        JsonNode held = awaitJob(api, topic, "j0", j -> heldEntries(j) > 0);
        JsonNode hold = lastHeld(held);
        assertThat(hold.path("error").asText()).as("%s", held)
                .startsWith("circuit open for " + origin + " since ").contains(": held until ");
        assertThat(held.path("attempts").asInt()).as("attempts count only real tries: %s", held)
                .isEqualTo(held.path("history").size() - heldEntries(held));

        RECEIVER.answer(r -> Reply.ok());
        JsonNode closed = awaitCircuit(viewer, origin, c -> c.path("state").asText().equals("CLOSED"));
        assertThat(Instant.parse(closed.path("closedAt").asText())).isAfter(openedAt);
        assertThat(closed.has("nextProbeAt")).as("%s", closed).isFalse();
        for (int i = 0; i < JOBS; i++) {
            JsonNode job = awaitJob(api, topic, "j" + i, j -> j.path("state").asText().equals("SUCCEEDED"));
            assertThat(job.path("attempts").asInt()).as("%s", job)
                    .isEqualTo(job.path("history").size() - heldEntries(job));
        }
        assertThat(RECEIVER.received(r -> r.path().equals("/down/" + topic) && r.header("Delayq-Topic") != null))
                .as("requests the receiver got").isNotEmpty();
        // the health check reads the circuits at most every 2 s
        long deadline = System.nanoTime() + 10_000_000_000L;
        String message = healthMessage(adminPort);
        while (message.contains(origin) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            message = healthMessage(adminPort);
        }
        assertThat(message).doesNotContain(origin);
    }

    private static String healthMessage(Api adminPort) {
        return adminPort.get("/healthcheck").json().path(CallbackEndpointsHealthCheck.NAME).path("message").asText();
    }

    private static JsonNode awaitCircuit(Api api, String origin, Predicate<JsonNode> until)
            throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            Answer list = api.get("/v1/admin/circuits");
            assertThat(list.status()).as(list.toString()).isEqualTo(200);
            assertThat(list.json().path("enabled").asBoolean()).isTrue();
            assertThat(list.json().path("kept").asBoolean()).isTrue();
            for (JsonNode c : list.json().path("items")) {
                if (origin.equals(c.path("origin").asText())) {
                    last = c;
                }
            }
            if (last != null && until.test(last)) {
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the circuit of " + origin + " never got there; last seen " + last);
    }

    private static JsonNode awaitJob(Api api, String topic, String id, Predicate<JsonNode> until)
            throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        JsonNode job = api.get("/v1/topics/" + topic + "/jobs/" + id).json();
        while (!until.test(job) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            job = api.get("/v1/topics/" + topic + "/jobs/" + id).json();
        }
        assertThat(until.test(job)).as("%s", job).isTrue();
        return job;
    }

    private static int heldEntries(JsonNode job) {
        int n = 0;
        for (JsonNode h : job.path("history")) {
            n += h.path("held").asBoolean() ? 1 : 0;
        }
        return n;
    }

    private static JsonNode lastHeld(JsonNode job) {
        JsonNode last = null;
        for (JsonNode h : job.path("history")) {
            if (h.path("held").asBoolean()) {
                last = h;
            }
        }
        return last;
    }
}
