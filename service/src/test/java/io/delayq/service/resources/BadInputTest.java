package io.delayq.service.resources;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every class of bad input answers a 4xx problem+json whose detail names the problem, and stores nothing: after
 * each test the topic must still be empty.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class BadInputTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    private Api api;
    private String topic;

    @BeforeEach
    void setUp() {
        api = TestApps.api(APP);
        topic = TestApps.topic();
    }

    @AfterEach
    void nothingWasStored() {
        Answer stats = api.get("/v1/topics/" + topic);
        assertThat(stats.json().path("scheduled").asLong()).isZero();
        assertThat(api.get("/v1/topics/" + topic + "/jobs/x").status()).isEqualTo(404);
    }

    private Answer schedule(String body) {
        return api.post("/v1/topics/" + topic + "/jobs", body);
    }

    private static void assertProblem(Answer answer, int status, String... detailParts) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("status").asInt()).isEqualTo(status);
        assertThat(answer.json().path("type").asText()).startsWith("urn:delayq:problem:");
        assertThat(answer.json().path("title").asText()).isNotEmpty();
        assertThat(answer.detail()).isNotBlank();
        for (String part : detailParts) {
            assertThat(answer.detail()).contains(part);
        }
    }

    @Test
    void malformedJson() {
        Answer answer = schedule("{\"id\":\"x\", \"payload\": {");
        assertProblem(answer, 400, "not valid JSON", "line 1");
    }

    @Test
    void unknownFieldIsNamed() {
        Answer answer = schedule("{\"id\":\"x\",\"payload\":{},\"delay\":5}");
        assertProblem(answer, 400, "Unknown field 'delay'", "delayMs");
        assertThat(answer.json().path("field").asText()).isEqualTo("delay");
    }

    @Test
    void unknownNestedFieldIsNamedWithItsPath() {
        Answer answer = schedule("{\"id\":\"x\",\"payload\":{},\"callback\":{\"uri\":\"http://127.0.0.1/\"}}");
        assertProblem(answer, 400, "callback.uri");
    }

    @Test
    void wrongTypeIsNamed() {
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"delayMs\":\"soon\"}"), 400,
                "Field 'delayMs' must be a number");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"broadcast\":\"yes\"}"), 400,
                "Field 'broadcast' must be true or false");
        assertProblem(schedule("[1, 2]"), 400, "The body must be a JSON object");
    }

    @Test
    void badTopic() {
        Answer answer = api.post("/v1/topics/bad%20topic/jobs", "{\"id\":\"x\",\"payload\":{}}");
        assertProblem(answer, 422, "topic 'bad topic' is invalid");
    }

    @Test
    void badId() {
        assertProblem(schedule("{\"id\":\"x/y?\",\"payload\":{}}"), 422, "job id 'x/y?' is invalid");
        assertProblem(api.get("/v1/topics/" + topic + "/jobs/" + "a".repeat(129)), 422, "job id");
    }

    @Test
    void negativeDelay() {
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"delayMs\":-1}"), 422, "delayMs is -1");
    }

    @Test
    void delayBeyondMaxDelay() {
        long tooFar = 31L * 24 * 3600 * 1000;
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"delayMs\":" + tooFar + "}"), 422, "maxDelay");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"runAt\":\"2999-01-01T00:00:00Z\"}"), 422, "maxDelay");
    }

    @Test
    void unparsableRunAt() {
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"runAt\":\"tomorrow\"}"), 422, "runAt 'tomorrow'",
                "RFC 3339");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"runAt\":\"2030-01-01T00:00:00\"}"), 422, "RFC 3339");
    }

    @Test
    void delayAndRunAtTogether() {
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"delayMs\":5,\"runAt\":\"2030-01-01T00:00:00Z\"}"),
                422, "not both");
    }

    @Test
    void oversizedPayload() {
        String big = "x".repeat(2000);
        assertProblem(schedule("{\"id\":\"x\",\"payload\":\"" + big + "\"}"), 422, "payload is 2002 bytes",
                "limit is 1024");
    }

    @Test
    void requestBodyOverTheLimitIsRefusedBeforeParsing() {
        String huge = "{\"id\":\"x\",\"payload\":\"" + "y".repeat(100_000) + "\"}";
        assertProblem(schedule(huge), 413, "limits.maxRequestBytes");
        byte[] bytes = huge.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Answer chunked = api.send(api.request("/v1/topics/" + topic + "/jobs").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(bytes))));
        assertProblem(chunked, 413, "limits.maxRequestBytes");
    }

    @Test
    void missingOrNullPayload() {
        assertProblem(schedule("{\"id\":\"x\",\"delayMs\":5}"), 422, "payload is required");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":null}"), 422, "payload is required");
    }

    @Test
    void missingBody() {
        assertProblem(schedule(""), 422, "body is required");
    }

    @Test
    void invalidCallbackUrls() {
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"callback\":{\"url\":\"ftp://example.com/x\"}}"),
                422, "http://");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"callback\":{\"url\":\"not a url\"}}"), 422,
                "callback.url");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"callback\":{}}"), 422, "callback.url is required");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"callback\":{\"url\":\"http://169.254.169.254/latest\"}}"),
                422, "169.254.169.254");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"callback\":{\"url\":\"http://127.0.0.1/\","
                + "\"headers\":{\"Delayq-Id\":\"forged\"}}}"), 422, "Delayq-Id");
    }

    @Test
    void outOfRangeOptions() {
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"maxAttempts\":0}"), 422, "maxAttempts is 0");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"timeout\":\"1ms\"}"), 422, "timeout");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"timeout\":\"soon\"}"), 400, "timeout");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"backoff\":{\"type\":\"linear\"}}"), 400, "backoff",
                "linear");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{},\"backoff\":{\"type\":\"schedule\",\"delays\":[]}}"),
                400, "backoff", "at least one delay");
    }

    @Test
    void batchWithMalformedItemIsRefusedWhole() {
        Answer answer = api.post("/v1/topics/" + topic + "/jobs/batch",
                "{\"jobs\":[{\"id\":\"x\",\"payload\":{}},{\"id\":\"y\",\"payload\":{},\"color\":\"red\"}]}");
        assertProblem(answer, 400, "jobs[1].color");
        assertProblem(api.post("/v1/topics/" + topic + "/jobs/batch", "{\"jobs\":[]}"), 422, "jobs");
    }

    @Test
    void wrongMediaTypeUnknownPathAndMethod() {
        Answer text = api.send(api.request("/v1/topics/" + topic + "/jobs")
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("hi")));
        assertProblem(text, 415, "application/json");
        assertProblem(api.get("/v1/nothing-here"), 404, "openapi");
        Answer method = api.send(api.request("/v1/topics/" + topic + "/jobs/x")
                .method("PATCH", HttpRequest.BodyPublishers.noBody()));
        assertProblem(method, 405);
    }
}
