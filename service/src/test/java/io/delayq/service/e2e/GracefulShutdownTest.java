package io.delayq.service.e2e;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stopping the service while callbacks are in flight loses nothing: in-flight attempts finish within the grace
 * period and their acks are written before the store closes (though batched for longer than the stop takes), and a
 * second instance on the same store delivers everything else.
 */
@Tag("both-stores")
class GracefulShutdownTest {
    private static final int IN_FLIGHT = 10;
    private static final int LATER = 20;

    @Test
    void stopWithCallbacksInFlightThenASecondInstanceDeliversTheRest() throws Exception {
        String topic = TestApps.topic();
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.slowMs(800);
            // acks wait 2 s for their batch, longer than the in-flight callbacks take: the stop must write them itself
            DropwizardTestSupport<DelayqConfiguration> first =
                    TestApps.support(ConfigOverride.config("delivery.ackFlushInterval", "2s"));
            first.before();
            Api api = new Api("http://127.0.0.1:" + first.getLocalPort(), TestApps.PRODUCER);
            String slow = receiver.url("/slow/" + topic);
            for (int i = 0; i < IN_FLIGHT; i++) {
                api.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"now-" + i + "\",\"payload\":" + i
                        + ",\"timeout\":\"3s\",\"callback\":{\"url\":\"" + slow + "\"}}");
            }
            for (int i = 0; i < LATER; i++) {
                api.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"later-" + i + "\",\"delayMs\":1500,\"payload\":"
                        + i + ",\"timeout\":\"3s\",\"callback\":{\"url\":\"" + receiver.url("/ok/" + topic) + "\"}}");
            }
            Thread.sleep(300);  // the first jobs are now being delivered (each takes 800 ms)
            first.after();
            // read before the second instance starts: what it delivers itself may still wait for its ack batch
            Set<String> answeredBeforeTheStop = distinctIds(receiver, topic);
            assertThat(answeredBeforeTheStop).as("callbacks in flight at the stop").isNotEmpty();

            DropwizardTestSupport<DelayqConfiguration> second = TestApps.support();
            second.before();
            try {
                Api again = new Api("http://127.0.0.1:" + second.getLocalPort(), TestApps.PRODUCER);
                for (String id : answeredBeforeTheStop) {
                    assertThat(again.get("/v1/topics/" + topic + "/jobs/" + id).json().path("state").asText())
                            .as("%s, answered 200 during the stop, acknowledged by it", id).isEqualTo("SUCCEEDED");
                }

                Set<String> expected = new HashSet<>();
                for (int i = 0; i < IN_FLIGHT; i++) {
                    expected.add("now-" + i);
                }
                for (int i = 0; i < LATER; i++) {
                    expected.add("later-" + i);
                }
                receiver.await(r -> topic.equals(r.header("Delayq-Topic"))
                        && distinctIds(receiver, topic).containsAll(expected), 1, Duration.ofSeconds(20));
                assertThat(distinctIds(receiver, topic)).containsAll(expected);

                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                Set<String> unfinished = new HashSet<>(expected);
                while (!unfinished.isEmpty() && System.nanoTime() < deadline) {
                    unfinished.removeIf(id -> "SUCCEEDED".equals(again.get("/v1/topics/" + topic + "/jobs/" + id)
                            .json().path("state").asText()));
                    Thread.sleep(100);
                }
                assertThat(unfinished).as("jobs not SUCCEEDED").isEmpty();
                for (String id : answeredBeforeTheStop) {
                    assertThat(receiver.received(r -> id.equals(r.header("Delayq-Id"))
                            && topic.equals(r.header("Delayq-Topic")))).as("deliveries of %s", id).hasSize(1);
                }
            } finally {
                second.after();
            }
        }
    }

    private static Set<String> distinctIds(CallbackReceiver receiver, String topic) {
        return receiver.received(r -> topic.equals(r.header("Delayq-Topic"))).stream()
                .map(r -> r.header("Delayq-Id")).collect(Collectors.toSet());
    }
}
