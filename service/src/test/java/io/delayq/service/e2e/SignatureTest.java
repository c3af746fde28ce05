package io.delayq.service.e2e;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static io.delayq.service.support.SignatureSpec.CALLBACK;
import static io.delayq.service.support.SignatureSpec.DEAD;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The signature covers what a receiver acts on (issue 26, finding 9): the id, the topic, the attempt and the kind of
 * request (a callback or a dead notice) as well as the timestamp and the body, in the versioned scheme {@code v2}, so
 * that a captured callback cannot be replayed under another {@code Delayq-Id}, attempt or topic, nor passed off as a
 * dead notice, and a notice of one topic's job does not verify as another topic's. {@code v1} is gone. Checked with
 * {@link SignatureSpec}, the documented scheme written out independently of the service's signer.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SignatureTest {
    private static final String SECRET = "test-secret"; // delivery.signingSecret of test-config.yml
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("deadNotices.pollInterval", "100ms"));
    static final CallbackReceiver RECEIVER = new CallbackReceiver();

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @Test
    void callbacksAndDeadNoticesAreSignedOverWhatTheReceiverActsOn() {
        Api api = TestApps.api(APP);
        String topic = TestApps.topic();
        Answer ok = api.post("/v1/topics/" + topic + "/jobs", """
                {"id": "order-1", "payload": {"order": 1, "note": "caf\u00e9"}, "callback": {"url": "%s"}}"""
                .formatted(RECEIVER.url("/hooks/" + topic)));
        assertThat(ok.status()).as(ok.toString()).isEqualTo(201);
        Answer doomed = api.post("/v1/topics/" + topic + "/jobs", """
                {"id": "order-2", "payload": {"order": 2}, "maxAttempts": 1, "callback": {"url": "%s"},
                 "onDead": {"url": "%s"}}""".formatted(RECEIVER.url("/fail/" + topic), RECEIVER.url("/dead/" + topic)));
        assertThat(doomed.status()).as(doomed.toString()).isEqualTo(201);

        Received callback = await(r -> r.path().equals("/hooks/" + topic));
        Received notice = await(r -> r.path().equals("/dead/" + topic));
        String header = callback.header("Delayq-Signature");
        assertThat(header).matches("t=\\d+,v2=[0-9a-f]{64}");
        assertThat(notice.header("Delayq-Signature")).matches("t=\\d+,v2=[0-9a-f]{64}");
        assertThat(callback.header("Delayq-Event")).isEqualTo(CALLBACK);
        assertThat(notice.header("Delayq-Event")).isEqualTo(DEAD);

        assertThat(SignatureSpec.verifies(SECRET, header, CALLBACK, topic, "order-1", "1", callback.body()))
                .as("the callback, %s", header).isTrue();
        assertThat(SignatureSpec.verifies(SECRET, notice.header("Delayq-Signature"), DEAD, topic, "order-2",
                notice.header("Delayq-Notice-Attempt"), notice.body())).as("the dead notice").isTrue();

        assertThat(SignatureSpec.verifies(SECRET, header, CALLBACK, topic, "order-9", "1", callback.body()))
                .as("replayed with another Delayq-Id").isFalse();
        assertThat(SignatureSpec.verifies(SECRET, header, CALLBACK, topic, "order-1", "2", callback.body()))
                .as("replayed as another attempt").isFalse();
        assertThat(SignatureSpec.verifies(SECRET, header, CALLBACK, "another-team", "order-1", "1", callback.body()))
                .as("presented as another topic's").isFalse();
        assertThat(SignatureSpec.verifies(SECRET, header, DEAD, topic, "order-1", "1", callback.body()))
                .as("a callback passed off as a dead notice").isFalse();
        assertThat(SignatureSpec.verifies("other-secret", header, CALLBACK, topic, "order-1", "1", callback.body()))
                .as("another secret").isFalse();
        long t = Long.parseLong(header.substring(2, header.indexOf(',')));
        assertThat(SignatureSpec.verifies(SECRET, header, CALLBACK, topic, "order-1", "1", callback.body(), t + 301))
                .as("older than the 300 s a receiver allows").isFalse();
    }

    private static Received await(java.util.function.Predicate<Received> which) {
        List<Received> got = RECEIVER.await(which, 1, Duration.ofSeconds(20));
        assertThat(got).hasSize(1);
        return got.get(0);
    }
}
