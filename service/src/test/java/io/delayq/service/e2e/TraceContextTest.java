package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The producer's W3C trace context continues across the delay (issue 17): stored with the job, sent on every callback
 * attempt under the same trace id with a new parent id, shown to pull consumers and in the job's view. Runs on both
 * stores (e2e-on-postgres). No OpenTelemetry SDK here: the service makes the new parent ids itself.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class TraceContextTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PRODUCER_SPAN = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PRODUCER_SPAN + "-01";
    private static final String TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
    private static final Pattern VALID = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    private Api api;
    private String topic;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        api = TestApps.api(APP);
        topic = TestApps.topic();
    }

    private Answer post(String path, String json, String traceparent, String tracestate) {
        HttpRequest.Builder request = api.request("/v1/topics/" + topic + path)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        if (traceparent != null) {
            request.header("traceparent", traceparent);
        }
        if (tracestate != null) {
            request.header("tracestate", tracestate);
        }
        return api.send(request);
    }

    @Test
    void everyCallbackAttemptContinuesTheProducersTraceUnderANewParentId() {
        Answer created = post("/jobs", """
                {"id": "traced", "payload": {"n": 1}, "callback": {"url": "%s"}, "maxAttempts": 2,
                 "backoff": {"type": "schedule", "delays": ["200ms"]}}""".formatted(RECEIVER.url("/fail/" + topic)),
                TRACEPARENT, TRACESTATE);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.json().path("traceparent").asText()).isEqualTo(TRACEPARENT);
        assertThat(created.json().path("tracestate").asText()).isEqualTo(TRACESTATE);

        List<Received> attempts = RECEIVER.await(r -> r.path().equals("/fail/" + topic), 2, Duration.ofSeconds(15));
        assertThat(attempts).hasSize(2);
        for (Received attempt : attempts) {
            String sent = attempt.header("traceparent");
            assertThat(sent).as("attempt %s", attempt.header("Delayq-Attempt")).matches(VALID);
            assertThat(sent.substring(3, 35)).as("the trace id").isEqualTo(TRACE_ID);
            assertThat(sent.substring(36, 52)).as("a parent id of delayq's own").isNotEqualTo(PRODUCER_SPAN)
                    .isNotEqualTo("0000000000000000");
            assertThat(sent.substring(53)).as("the flags, kept").isEqualTo("01");
            assertThat(attempt.header("tracestate")).isEqualTo(TRACESTATE);
        }
        assertThat(attempts.get(0).header("traceparent")).as("a new parent id per attempt")
                .isNotEqualTo(attempts.get(1).header("traceparent"));
        assertThat(api.get("/v1/topics/" + topic + "/jobs/traced").json().path("traceparent").asText())
                .isEqualTo(TRACEPARENT);
    }

    @Test
    void aPullConsumersLeaseCarriesTheTraceContextOfEachBatchedJob() {
        Answer batch = post("/jobs/batch",
                "{\"jobs\": [{\"id\": \"b1\", \"payload\": {}}, {\"id\": \"b2\", \"payload\": {}}]}", TRACEPARENT, null);
        assertThat(batch.status()).as(batch.toString()).isEqualTo(200);

        Answer leased = api.as(TestApps.CONSUMER).post("/v1/topics/" + topic + "/leases",
                "{\"max\": 2, \"waitMs\": 5000}");
        assertThat(leased.status()).as(leased.toString()).isEqualTo(200);
        JsonNode leases = leased.json().path("leases");
        assertThat(leases).as(leased.toString()).hasSize(2);
        for (JsonNode lease : leases) {
            assertThat(lease.path("traceparent").asText()).isEqualTo(TRACEPARENT);
            assertThat(lease.has("tracestate")).as("none was sent").isFalse();
        }
    }

    @Test
    void aJobWithoutAValidTraceparentIsDeliveredWithoutOne() {
        String url = RECEIVER.url("/ok/" + topic);
        assertThat(post("/jobs", "{\"id\": \"plain\", \"payload\": {}, \"callback\": {\"url\": \"" + url + "\"}}",
                null, TRACESTATE).status()).isEqualTo(201);
        // W3C: a receiver ignores a traceparent it cannot parse (the trace restarts); the enqueue still succeeds
        Answer invalid = post("/jobs", "{\"id\": \"bad\", \"payload\": {}, \"callback\": {\"url\": \"" + url + "\"}}",
                "00-" + "0".repeat(32) + "-" + PRODUCER_SPAN + "-01", TRACESTATE);
        assertThat(invalid.status()).as(invalid.toString()).isEqualTo(201);
        assertThat(invalid.json().has("traceparent")).isFalse();

        List<Received> got = RECEIVER.await(r -> r.path().equals("/ok/" + topic), 2, Duration.ofSeconds(15));
        assertThat(got).hasSize(2).allSatisfy(r -> {
            assertThat(r.header("traceparent")).as(r.id()).isNull();
            assertThat(r.header("tracestate")).as(r.id()).isNull();
        });
        Answer lease = post("/jobs", "{\"id\": \"pulled\", \"payload\": {}}", null, null);
        assertThat(lease.status()).isEqualTo(201);
        JsonNode leases = api.as(TestApps.CONSUMER).post("/v1/topics/" + topic + "/leases",
                "{\"max\": 1, \"waitMs\": 5000}").json().path("leases");
        assertThat(leases).hasSize(1);
        assertThat(leases.get(0).has("traceparent")).isFalse();
    }
}
