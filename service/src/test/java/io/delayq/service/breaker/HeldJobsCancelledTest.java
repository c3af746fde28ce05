package io.delayq.service.breaker;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.breaker.Origins;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.service.support.Api;
import io.delayq.service.support.Circuits;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, finding 7: the held-jobs count of a circuit is what is really held. Jobs held on an open circuit and then
 * cancelled are not counted once the circuit recovers, so the release after it does not pace new jobs for them: the
 * count is 0 and new jobs go at once (at {@code releasePerSecond: 1}, a stale count of 20 would space six new jobs
 * over five seconds). Runs on both stores.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class HeldJobsCancelledTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.breaker.enabled", "true"));
    private static final int HELD = 20;
    private static final int AFTER = 6;

    @Test
    void cancelledHeldJobsLeaveTheCountAndNewJobsAreNotPacedForThem() {
        Api api = TestApps.api(APP);
        Api admin = api.as(TestApps.ADMIN);
        String topic = TestApps.topic();
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.stop();
            String origin = Origins.of(receiver.url("/"));
            Answer put = admin.put("/v1/topics/" + topic, """
                    {"callback": {"url": "%s"}, "maxAttempts": 10, "backoff": {"type": "schedule", "delays": ["1s"]},
                     "breaker": {"enabled": true, "failureThreshold": 1, "probeInterval": "1s",
                                 "maxProbeInterval": "2s", "releasePerSecond": 1}}"""
                    .formatted(receiver.url("/held")));
            assertThat(put.status()).as(put.toString()).isEqualTo(200);

            for (int i = 0; i < HELD; i++) {
                schedule(api, topic, "held-" + i);
            }
            Await.until("the jobs are held on the open circuit", Duration.ofSeconds(30), () -> {
                JsonNode c = Circuits.of(admin, origin);
                return c != null && "OPEN".equals(c.path("state").asText())
                        && c.path("heldJobs").asLong() >= HELD - 2;
            });
            for (int i = 0; i < HELD; i++) {
                Answer cancelled = api.delete("/v1/topics/" + topic + "/jobs/held-" + i);
                assertThat(cancelled.status()).as(cancelled.toString()).isIn(204, 409);
            }

            receiver.start();
            schedule(api, topic, "probe"); // held until the next probe, which it then is
            Await.until("the circuit closes", Duration.ofSeconds(30), () -> {
                JsonNode c = Circuits.of(admin, origin);
                return c != null && "CLOSED".equals(c.path("state").asText());
            });
            Await.until("no job is counted held", Duration.ofSeconds(10),
                    () -> Circuits.of(admin, origin).path("heldJobs").asLong() == 0);

            long sentAt = System.currentTimeMillis();
            for (int i = 0; i < AFTER; i++) {
                schedule(api, topic, "after-" + i);
            }
            Await.until("the new jobs arrive", Duration.ofSeconds(30),
                    () -> arrivals(receiver, "after-").size() == AFTER);
            long last = arrivals(receiver, "after-").stream().mapToLong(Received::receivedAtMs).max().orElseThrow();
            assertThat(last - sentAt).as("ms until the last new job arrived (paced at 1/s: 5,000 or more)")
                    .isLessThan(3_000);
        }
    }

    private static void schedule(Api api, String topic, String id) {
        Answer created = api.post("/v1/topics/" + topic + "/jobs", """
                {"id": "%s", "payload": {"n": 1}}""".formatted(id));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private static List<Received> arrivals(CallbackReceiver receiver, String prefix) {
        return receiver.received().stream().filter(a -> a.id().startsWith(prefix)).toList();
    }
}
