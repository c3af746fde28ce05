package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.delivery.Signatures;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.CallbackReceiver;
import io.delayq.service.support.CallbackReceiver.Received;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Jobs scheduled over HTTP reach a real HTTP receiver: on time, once, signed; failing callbacks die on schedule. */
@ExtendWith(DropwizardExtensionsSupport.class)
class PushDeliveryTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    static final CallbackReceiver RECEIVER = new CallbackReceiver();

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

    private String jobs() {
        return "/v1/topics/" + topic + "/jobs";
    }

    @Test
    void deliversOnTimeExactlyOnceWithAVerifiableSignature() throws InterruptedException {
        String url = RECEIVER.url("/ok/" + topic);
        Answer created = api.post(jobs(), """
                {"id": "on-time", "delayMs": 1500, "payload": {"hello": "world", "n": [1, 2]},
                 "callback": {"url": "%s", "headers": {"X-Receiver-Key": "k1"}}}""".formatted(url));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        long runAt = Instant.parse(created.json().path("runAt").asText()).toEpochMilli();

        List<Received> got = RECEIVER.await(r -> r.path().equals("/ok/" + topic), 1, Duration.ofSeconds(10));
        assertThat(got).hasSize(1);
        Received delivery = got.get(0);
        assertThat(delivery.receivedAtMs()).as("not early").isGreaterThanOrEqualTo(runAt);
        assertThat(delivery.bodyText()).isEqualTo("{\"hello\":\"world\",\"n\":[1,2]}");
        assertThat(delivery.header("Delayq-Id")).isEqualTo("on-time");
        assertThat(delivery.header("Delayq-Topic")).isEqualTo(topic);
        assertThat(delivery.header("Delayq-Attempt")).isEqualTo("1");
        assertThat(delivery.header("Delayq-Run-At")).isNotBlank();
        assertThat(delivery.header("X-Receiver-Key")).isEqualTo("k1");
        assertThat(Signatures.verify("test-secret", delivery.header("Delayq-Signature"),
                delivery.bodyText().getBytes(StandardCharsets.UTF_8), 300, Instant.now().getEpochSecond())).isTrue();
        assertThat(Signatures.verify("another-secret", delivery.header("Delayq-Signature"),
                delivery.body(), 300, Instant.now().getEpochSecond())).isFalse();

        JsonNode job = awaitState("on-time", "SUCCEEDED");
        assertThat(job.path("attempts").asInt()).isEqualTo(1);
        Thread.sleep(700);
        assertThat(RECEIVER.received(r -> r.path().equals("/ok/" + topic))).as("exactly once").hasSize(1);
    }

    @Test
    void failingCallbackIsAttemptedMaxAttemptsTimesOnItsScheduleThenDead() throws InterruptedException {
        String url = RECEIVER.url("/fail/" + topic);
        Answer created = api.post(jobs(), """
                {"id": "doomed", "payload": {}, "callback": {"url": "%s"}, "maxAttempts": 3,
                 "backoff": {"type": "schedule", "delays": ["200ms", "400ms"]}}""".formatted(url));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);

        JsonNode job = awaitState("doomed", "DEAD");
        Thread.sleep(500);
        List<Received> attempts = RECEIVER.received(r -> r.path().equals("/fail/" + topic));
        assertThat(attempts).extracting(r -> r.header("Delayq-Attempt")).containsExactly("1", "2", "3");
        assertThat(attempts.get(1).receivedAtMs() - attempts.get(0).receivedAtMs()).isGreaterThanOrEqualTo(200);
        assertThat(attempts.get(2).receivedAtMs() - attempts.get(1).receivedAtMs()).isGreaterThanOrEqualTo(400);
        assertThat(job.path("attempts").asInt()).isEqualTo(3);
        assertThat(job.path("lastError").asText()).contains("500");
    }

    @Test
    void cancelledJobNeverArrives() throws InterruptedException {
        String url = RECEIVER.url("/ok/" + topic);
        api.post(jobs(), "{\"id\":\"cancel-me\",\"delayMs\":600,\"payload\":{},\"callback\":{\"url\":\"" + url + "\"}}");
        assertThat(api.delete(jobs() + "/cancel-me").status()).isEqualTo(204);

        Thread.sleep(1_500);
        assertThat(RECEIVER.received(r -> r.path().equals("/ok/" + topic))).isEmpty();
        assertThat(api.get(jobs() + "/cancel-me").json().path("state").asText()).isEqualTo("CANCELLED");
    }

    @Test
    void pausedTopicHoldsItsJobsUntilResumed() throws InterruptedException {
        Api admin = api.as(TestApps.ADMIN);
        String url = RECEIVER.url("/ok/" + topic);
        admin.put("/v1/topics/" + topic, "{\"paused\": true, \"callback\": {\"url\": \"" + url + "\"}}");
        Answer created = api.post(jobs(), "{\"id\":\"held\",\"delayMs\":100,\"payload\":{}}");
        assertThat(created.json().path("delivery").asText()).isEqualTo("PUSH");

        Thread.sleep(1_200);
        assertThat(RECEIVER.received(r -> r.path().equals("/ok/" + topic))).isEmpty();

        admin.put("/v1/topics/" + topic, "{\"paused\": false}");
        assertThat(RECEIVER.await(r -> r.path().equals("/ok/" + topic), 1, Duration.ofSeconds(10))).hasSize(1);
        awaitState("held", "SUCCEEDED");
    }

    @Test
    void rescheduledJobArrivesAtItsNewTime() {
        String url = RECEIVER.url("/ok/" + topic);
        api.post(jobs(), "{\"id\":\"moved\",\"delayMs\":600000,\"payload\":{},\"callback\":{\"url\":\"" + url + "\"}}");
        Answer moved = api.post(jobs() + "/moved/reschedule", "{\"delayMs\":300}");
        long runAt = Instant.parse(moved.json().path("runAt").asText()).toEpochMilli();

        List<Received> got = RECEIVER.await(r -> r.path().equals("/ok/" + topic), 1, Duration.ofSeconds(10));
        assertThat(got).hasSize(1);
        assertThat(got.get(0).receivedAtMs()).isGreaterThanOrEqualTo(runAt);
    }

    private JsonNode awaitState(String id, String state) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        JsonNode job = api.get(jobs() + "/" + id).json();
        while (!state.equals(job.path("state").asText()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            job = api.get(jobs() + "/" + id).json();
        }
        assertThat(job.path("state").asText()).as(job.toString()).isEqualTo(state);
        return job;
    }
}
