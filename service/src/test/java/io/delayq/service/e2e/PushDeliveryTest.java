package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.SignatureSpec;
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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Jobs scheduled over HTTP reach a real HTTP receiver: on time, once, signed; failing callbacks die on schedule. */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
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

    /** The done-when: a job scheduled 2 s ahead reaches its callback once, not early, with a verifiable signature. */
    @Test
    void deliversOnTimeExactlyOnceWithAVerifiableSignature() throws InterruptedException {
        String url = RECEIVER.url("/ok/" + topic);
        Answer created = api.post(jobs(), """
                {"id": "on-time", "delayMs": 2000, "payload": {"hello": "world", "n": [1, 2]},
                 "callback": {"url": "%s", "headers": {"X-Receiver-Key": "k1"}}}""".formatted(url));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        // runAt and createdAt are both read from the service's (the store's) clock
        long runAt = Instant.parse(created.json().path("runAt").asText()).toEpochMilli();
        long createdAt = Instant.parse(created.json().path("createdAt").asText()).toEpochMilli();
        assertThat(runAt - createdAt).as("scheduled 2 s ahead: %s", created).isEqualTo(2_000);

        List<Received> got = RECEIVER.await(r -> r.path().equals("/ok/" + topic), 1, Duration.ofSeconds(15));
        assertThat(got).as("the delivery").hasSize(1);
        Received delivery = got.get(0);
        assertThat(delivery.receivedAtMs()).as("not early: received at vs runAt").isGreaterThanOrEqualTo(runAt);
        assertThat(delivery.receivedAtMs() - runAt).as("lateness in ms (generous bound for a loaded machine)")
                .isLessThanOrEqualTo(1_500);
        assertThat(delivery.bodyText()).isEqualTo("{\"hello\":\"world\",\"n\":[1,2]}");
        assertThat(delivery.header("Delayq-Id")).isEqualTo("on-time");
        assertThat(delivery.header("Delayq-Topic")).isEqualTo(topic);
        assertThat(delivery.header("Delayq-Attempt")).isEqualTo("1");
        assertThat(Instant.parse(delivery.header("Delayq-Run-At")).toEpochMilli()).isEqualTo(runAt);
        assertThat(delivery.header("X-Receiver-Key")).isEqualTo("k1");

        String signature = delivery.header("Delayq-Signature");
        assertThat(signature).as("signature header").isNotNull();
        long receivedAtSeconds = delivery.receivedAtMs() / 1_000;
        assertThat(SignatureSpec.verifies("test-secret", signature, SignatureSpec.CALLBACK, topic, "on-time", "1",
                delivery.body())).as("verifies with the configured secret: %s", signature).isTrue();
        // t= is the time of the delivery in unix seconds: within a few seconds of the receipt
        long t = Long.parseLong(signature.substring(2, signature.indexOf(',')));
        assertThat(Math.abs(t - receivedAtSeconds)).as("timestamp fresh at receipt: %s", signature)
                .isLessThanOrEqualTo(5);
        assertThat(SignatureSpec.verifies("another-secret", signature, SignatureSpec.CALLBACK, topic, "on-time", "1",
                delivery.body())).as("another secret").isFalse();
        assertThat(SignatureSpec.verifies("test-secret", signature, SignatureSpec.CALLBACK, topic, "on-time", "1",
                "{\"hello\":\"world\",\"n\":[1,3]}".getBytes(StandardCharsets.UTF_8))).as("an altered body")
                .isFalse();

        JsonNode job = awaitState("on-time", "SUCCEEDED");
        assertThat(job.path("attempts").asInt()).isEqualTo(1);
        assertThat(job.path("history")).as("history").hasSize(1);
        // a duplicate (a second timer, a sweep, an unacknowledged lease) would show up within a few sweep intervals
        Thread.sleep(1_500);
        assertThat(RECEIVER.received(r -> "on-time".equals(r.header("Delayq-Id")) && topic.equals(r.header("Delayq-Topic"))))
                .as("exactly once").hasSize(1);
        assertThat(api.get(jobs() + "/on-time").json().path("attempts").asInt()).isEqualTo(1);
    }

    /**
     * "A job whose callback always fails is attempted exactly maxAttempts times on its schedule and is then DEAD."
     * The delays differ by more than the slack, so a delay taken from the wrong schedule step falls outside its window.
     */
    @Test
    void failingCallbackIsAttemptedMaxAttemptsTimesOnItsScheduleThenDead() throws InterruptedException {
        String url = RECEIVER.url("/fail/" + topic);
        long[] delays = {200, 1_800, 1_800}; // the schedule's last delay repeats
        long slackMs = 1_500;
        Answer created = api.post(jobs(), """
                {"id": "doomed", "payload": {}, "callback": {"url": "%s"}, "maxAttempts": 4,
                 "backoff": {"type": "schedule", "delays": ["200ms", "1800ms"]}}""".formatted(url));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);

        JsonNode job = awaitState("doomed", "DEAD");
        Thread.sleep(1_500); // an attempt beyond maxAttempts would show up now (sweepInterval is 500 ms)
        List<Received> attempts = RECEIVER.received(r -> r.path().equals("/fail/" + topic));
        assertThat(attempts).extracting(r -> r.header("Delayq-Attempt")).containsExactly("1", "2", "3", "4");
        for (int i = 1; i < attempts.size(); i++) {
            long gap = attempts.get(i).receivedAtMs() - attempts.get(i - 1).receivedAtMs();
            assertThat(gap).as("ms between attempt %d and %d (scheduled %d ms)", i, i + 1, delays[i - 1])
                    .isBetween(delays[i - 1], delays[i - 1] + slackMs);
        }
        assertThat(job.path("attempts").asInt()).isEqualTo(4);
        assertThat(job.path("maxAttempts").asInt()).isEqualTo(4);
        assertThat(job.path("lastError").asText()).startsWith("callback answered HTTP 500");
        assertThat(job.path("finishedAt").asText()).isNotBlank();
        JsonNode history = job.path("history");
        assertThat(history).as("history").hasSize(4);
        for (int i = 0; i < 4; i++) {
            assertThat(history.get(i).path("number").asInt()).as("history[%d].number", i).isEqualTo(i + 1);
            assertThat(history.get(i).path("httpStatus").asInt()).as("history[%d].httpStatus", i).isEqualTo(500);
        }
        JsonNode after = api.get(jobs() + "/doomed").json();
        assertThat(after.path("state").asText()).as("still dead: %s", after).isEqualTo("DEAD");
        assertThat(after.path("attempts").asInt()).isEqualTo(4);
        JsonNode stats = api.get("/v1/topics/" + topic).json();
        assertThat(stats.path("dead").asLong()).as("topic stats %s", stats).isEqualTo(1);
        assertThat(stats.path("scheduled").asLong()).as("topic stats %s", stats).isZero();
        assertThat(stats.path("leased").asLong()).as("topic stats %s", stats).isZero();
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
