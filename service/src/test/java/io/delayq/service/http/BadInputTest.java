package io.delayq.service.http;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

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

    private Answer admin(String method, String path, String body) {
        return api.as(TestApps.ADMIN).send(api.as(TestApps.ADMIN).request(path).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)));
    }

    private static String job(String fields) {
        return "{\"id\":\"x\",\"payload\":{}," + fields + "}";
    }

    private static String delays(int count, String each) {
        return IntStream.range(0, count).mapToObj(i -> "\"" + each + "\"").collect(Collectors.joining(",", "[", "]"));
    }

    // -- issue 12, item 6: backoff delays are bounded by limits.maxDelay (30d in test-config.yml)

    @Test
    void backoffDelaysBeyondMaxDelayAreRefusedInJobs() {
        assertProblem(schedule(job("\"backoff\":{\"type\":\"schedule\",\"delays\":[\"1s\",\"1000000000d\"]}")), 422,
                "backoff.delays[1]", "1000000000 days", "limits.maxDelay");
        assertProblem(schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":2,"
                + "\"max\":\"31d\"}")), 422, "backoff.max", "limits.maxDelay");
        assertProblem(schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"40d\",\"multiplier\":2,"
                + "\"max\":\"40d\"}")), 422, "backoff.initial", "limits.maxDelay");
    }

    @Test
    void backoffDelaysBeyondMaxDelayAreRefusedInTopicSettings() {
        assertProblem(admin("PUT", "/v1/topics/" + topic, "{\"backoff\":{\"type\":\"schedule\",\"delays\":[\"31d\"]}}"),
                422, "backoff.delays[0]", "limits.maxDelay");
        assertProblem(admin("PUT", "/v1/topics/" + topic, "{\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\","
                + "\"multiplier\":2,\"max\":\"1000000000d\"}}"), 422, "backoff.max", "limits.maxDelay");
        assertThat(api.get("/v1/topics/" + topic).json().path("settings").has("backoff")).isFalse();
    }

    // -- item 15: a runAt outside what a time can hold, and a backoff that does not say what is missing

    @Test
    void runAtBeyondTheRangeOfTimesIsUnprocessableNotAServerError() {
        assertProblem(schedule(job("\"runAt\":\"+292278995-01-01T00:00:00Z\"")), 422, "runAt", "RFC 3339");
        assertProblem(schedule(job("\"runAt\":\"-292278995-01-01T00:00:00Z\"")), 422, "runAt", "RFC 3339");
        assertProblem(api.post("/v1/topics/" + topic + "/jobs/x/reschedule", "{\"runAt\":\"+999999999-12-31T23:59:59Z\"}"),
                422, "runAt", "RFC 3339");
    }

    @Test
    void incompleteExponentialBackoffSaysWhatToSend() {
        Answer noMax = schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":2}"));
        assertProblem(noMax, 400, "backoff", "\"max\"", "e.g.");
        Answer noInitial = schedule(job("\"backoff\":{\"type\":\"exponential\",\"multiplier\":2,\"max\":\"1h\"}"));
        assertProblem(noInitial, 400, "backoff", "\"initial\"", "e.g.");
        Answer noMultiplier = schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\",\"max\":\"1h\"}"));
        assertProblem(noMultiplier, 400, "backoff", "multiplier", "e.g.");
    }

    // -- item 16: the whole job is bounded, not only its payload

    @Test
    void backoffScheduleLongerThanMaxAttemptsIsRefused() {
        assertProblem(schedule(job("\"backoff\":{\"type\":\"schedule\",\"delays\":" + delays(101, "1s") + "}")), 422,
                "backoff.delays has 101 delays", "limits.maxAttempts");
        assertProblem(admin("PUT", "/v1/topics/" + topic, "{\"backoff\":{\"type\":\"schedule\",\"delays\":"
                + delays(101, "1s") + "}}"), 422, "backoff.delays has 101 delays");
    }

    @Test
    void callbackHeadersAreBoundedInCountAndSize() {
        String many = IntStream.range(0, 33).mapToObj(i -> "\"X-H" + i + "\":\"v\"")
                .collect(Collectors.joining(",", "{", "}"));
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":" + many + "}")), 422,
                "callback.headers has 33", "limits.maxCallbackHeaders");
        String big = "{\"X-A\":\"" + "a".repeat(3000) + "\",\"X-B\":\"" + "b".repeat(3000) + "\",\"X-C\":\""
                + "c".repeat(3000) + "\"}";
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":" + big + "}")), 422,
                "callback.headers", "limits.maxCallbackHeaderBytes");
    }

    // -- item 17: NaN and Infinity never make a backoff

    @Test
    void nonFiniteBackoffNumbersAreRefused() {
        assertProblem(schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":\"NaN\","
                + "\"max\":\"1h\"}")), 400, "backoff", "\"multiplier\" is NaN", "finite", "e.g.");
        assertProblem(schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":2,"
                + "\"max\":\"1h\",\"jitter\":\"NaN\"}")), 400, "backoff", "\"jitter\" is NaN", "e.g.");
        assertProblem(schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":1e400,"
                + "\"max\":\"1h\"}")), 400, "multiplier", "finite");
        assertProblem(schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":\"Infinity\","
                + "\"max\":\"1h\"}")), 400, "backoff", "\"multiplier\" is Infinity");
    }

    // -- item 18: no coercion of JSON types, no duplicate keys, strict query booleans

    @Test
    void valuesOfTheWrongJsonTypeAreNotCoerced() {
        assertProblem(schedule(job("\"delayMs\":\"5000\"")), 400, "Field 'delayMs' must be a number", "whole number",
                "without quotes");
        assertProblem(schedule(job("\"delayMs\":1.5")), 400, "Field 'delayMs' must be a number", "whole number");
        assertProblem(schedule(job("\"delayMs\":\"\"")), 400, "Field 'delayMs' must be a number");
        assertProblem(schedule(job("\"maxAttempts\":\"3\"")), 400, "Field 'maxAttempts' must be a number", "whole number");
        assertProblem(schedule("{\"id\":123,\"payload\":{}}"), 400, "Field 'id' must be a string");
        assertProblem(schedule(job("\"broadcast\":1")), 400, "Field 'broadcast' must be true or false");
        assertProblem(schedule(job("\"broadcast\":\"true\"")), 400, "Field 'broadcast' must be true or false");
        Answer tooBig = schedule(job("\"delayMs\":123456789012345678901234567890"));
        assertProblem(tooBig, 400, "Field 'delayMs' is out of range");
        assertThat(tooBig.json().path("field").asText()).isEqualTo("delayMs");
        assertProblem(schedule(job("\"timeout\":30")), 400, "Field 'timeout' must be a string");
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":{\"X-N\":5}}")), 400,
                "callback.headers.X-N", "must be a string");
        assertProblem(admin("PUT", "/v1/topics/" + topic, "{\"paused\":1}"), 400, "Field 'paused' must be true or false");
        assertThat(api.get("/v1/topics/" + topic).json().path("settings").path("paused").asBoolean()).isFalse();
    }

    @Test
    void duplicateKeysAreRefused() {
        assertProblem(schedule("{\"id\":\"x\",\"id\":\"y\",\"payload\":{}}"), 400, "Duplicate field 'id'",
                "send each field once");
        assertProblem(schedule("{\"id\":\"x\",\"payload\":{\"a\":1,\"a\":2}}"), 400, "Duplicate field 'a'");
    }

    @Test
    void queryParametersOfTheWrongTypeAreRefusedNamingTheParameter() {
        Answer maybe = api.as(TestApps.ADMIN).get("/v1/admin/dead-letters?replayed=maybe");
        assertProblem(maybe, 400, "replayed", "true or false", "maybe");
        Answer limit = api.as(TestApps.ADMIN).get("/v1/admin/dead-letters?limit=ten");
        assertProblem(limit, 400, "limit", "whole number");
    }

    // -- item 19: the body must be valid UTF-8

    @Test
    void malformedUtf8IsRefused() {
        for (byte[] bad : new byte[][]{{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
                {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                {(byte) 0xFF}}) {
            byte[] head = "{\"id\":\"x\",\"payload\":{\"p\":\"".getBytes(StandardCharsets.US_ASCII);
            byte[] tail = "\"}}".getBytes(StandardCharsets.US_ASCII);
            byte[] body = new byte[head.length + bad.length + tail.length];
            System.arraycopy(head, 0, body, 0, head.length);
            System.arraycopy(bad, 0, body, head.length, bad.length);
            System.arraycopy(tail, 0, body, head.length + bad.length, tail.length);
            Answer answer = api.send(api.request("/v1/topics/" + topic + "/jobs").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
            assertProblem(answer, 400, "UTF-8", "byte " + head.length);
        }
    }

    // -- item 20: callback fields that cannot work

    @Test
    void callbackPortsOutsideOneTo65535AreRefused() {
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:0/x\"}")), 422, "port 0", "1 to 65535");
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:70000/x\"}")), 422, "port 70000",
                "1 to 65535");
    }

    @Test
    void callbackHeaderValuesWithControlOrNonAsciiCharactersAreRefused() {
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":{\"X-A\":\"a\\u0000b\"}}")),
                422, "X-A", "printable ASCII");
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":{\"X-A\":\"a\\u2028b\"}}")),
                422, "X-A", "printable ASCII");
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":{\"X-A\":\"a\\u007fb\"}}")),
                422, "X-A", "printable ASCII");
        assertProblem(schedule(job("\"callback\":{\"url\":\"http://127.0.0.1:9/\",\"headers\":{\"X-A\":null}}")),
                422, "X-A", "null");
        assertProblem(schedule(job("\"callback\":{\"url\":null}")), 422, "callback.url is required");
    }

    @Test
    void exponentialMaxBelowInitialIsRefused() {
        assertProblem(schedule(job("\"backoff\":{\"type\":\"exponential\",\"initial\":\"10s\",\"multiplier\":2,"
                + "\"max\":\"1s\"}")), 422, "backoff.max", "backoff.initial");
        assertProblem(admin("PUT", "/v1/topics/" + topic, "{\"backoff\":{\"type\":\"exponential\",\"initial\":\"10s\","
                + "\"multiplier\":2,\"max\":\"1s\"}}"), 422, "backoff.max", "backoff.initial");
    }

    // -- item 21: a ';' in a path never cuts a topic or an id short

    @Test
    void matrixParametersInThePathAreRefused() {
        Answer cut = api.post("/v1/topics/" + topic + ";b/jobs", "{\"id\":\"x\",\"payload\":{}}");
        assertProblem(cut, 400, "';'");
        assertThat(cut.json().path("type").asText()).isEqualTo("urn:delayq:problem:invalid-path");
        assertProblem(admin("PUT", "/v1/topics/" + topic + ";b", "{\"paused\":true}"), 400, "';'");
        assertProblem(api.get("/v1/topics/" + topic + "/jobs/x;y"), 400, "';'");
        assertThat(api.get("/v1/topics/" + topic).json().path("settings").path("paused").asBoolean()).isFalse();
    }

    // -- item 23: what a problem quotes of the input is cut short

    @Test
    void hugeInputsAreNotEchoedWhole() {
        String longId = "i".repeat(50_000);
        Answer id = schedule("{\"id\":\"" + longId + "\",\"payload\":{}}");
        assertProblem(id, 422, "job id 'iiii", "(50000 characters)");
        assertThat(id.raw().body().length()).isLessThan(1_000);

        String longField = "f".repeat(50_000);
        Answer field = schedule("{\"id\":\"x\",\"payload\":{},\"" + longField + "\":1}");
        assertProblem(field, 400, "Unknown field 'ffff", "(50000 characters)");
        assertThat(field.raw().body().length()).isLessThan(1_500);

        Answer runAt = schedule(job("\"runAt\":\"" + "2".repeat(50_000) + "\""));
        assertProblem(runAt, 422, "runAt '2222", "(50000 characters)");
        assertThat(runAt.raw().body().length()).isLessThan(1_000);

        Answer url = schedule(job("\"callback\":{\"url\":\"http://" + "h".repeat(50_000) + "/\"}"));
        assertProblem(url, 422, "callback.url");
        assertThat(url.raw().body().length()).isLessThan(1_000);

        Answer topicName = api.post("/v1/topics/" + "t".repeat(5_000) + "/jobs", "{\"id\":\"x\",\"payload\":{}}");
        assertProblem(topicName, 422, "topic 'tttt", "(5000 characters)");
        assertThat(topicName.json().path("detail").asText().length()).isLessThan(400);
        assertThat(topicName.raw().body().length()).as("the path in instance is cut too").isLessThan(2_000);
    }
}
