package io.delayq.service.e2e;

import io.delayq.core.testing.Await;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.testing.ServiceProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kill -9} of the service while it delivers, then a new process on the same store: every job whose enqueue
 * was acknowledged reaches its callback (at least once: an attempt cut off by the kill is retried when its lease
 * expires), none before its run time. Runs on whichever store {@code -Ddelayq.test.store} selects.
 */
@Tag("slow") // two service JVMs started one after the other (CONTRIBUTING.md: the fast run leaves it out)
@Tag("both-stores")
class KillDuringDeliveryTest {
    private static final int JOBS = 300;

    @Test
    void noAcknowledgedJobIsLostWhenTheServiceIsKilledMidDelivery(@TempDir Path dir) throws Exception {
        String topic = TestApps.topic();
        try (CallbackReceiver receiver = new CallbackReceiver();
             ServiceProcess first = TestApps.process(dir).start()) {
            receiver.slowMs(5); // a receiver that takes a moment, so that attempts are in flight at the kill
            Api api = new Api(first.baseUrl(), TestApps.PRODUCER);
            Set<String> accepted = new HashSet<>();
            for (int batch = 0; batch < JOBS / 50; batch++) {
                StringBuilder body = new StringBuilder("{\"jobs\":[");
                for (int i = 0; i < 50; i++) {
                    int n = batch * 50 + i;
                    body.append(i == 0 ? "" : ",").append("""
                            {"id":"k%d","delayMs":%d,"payload":{"n":%d},"timeout":"2s",
                             "callback":{"url":"%s"}}""".formatted(n, 500 + n * 10, n, receiver.url("/kill/" + topic)));
                }
                Answer answer = api.post("/v1/topics/" + topic + "/jobs/batch", body.append("]}").toString());
                assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
                answer.json().path("items").forEach(item -> {
                    if (item.path("status").asInt() / 100 == 2) {
                        accepted.add(item.path("id").asText());
                    }
                });
            }
            assertThat(accepted).as("every enqueue acknowledged").hasSize(JOBS);

            Await.until("deliveries under way", 20_000, () -> receiver.count() >= JOBS / 4);
            first.kill();
            int beforeKill = receiver.count();
            assertThat(beforeKill).as("killed mid-delivery").isLessThan(JOBS);

            try (ServiceProcess second = TestApps.process(dir).start()) {
                Await.until("every accepted job delivered after the restart", 60_000, () ->
                        delivered(receiver, topic).keySet().containsAll(accepted));
                Map<String, List<Received>> byId = delivered(receiver, topic);
                for (List<Received> deliveries : byId.values()) {
                    for (Received r : deliveries) {
                        long runAt = Instant.parse(r.header("Delayq-Run-At")).toEpochMilli();
                        assertThat(r.receivedAtMs()).as("not before runAt: %s", r.id()).isGreaterThanOrEqualTo(runAt);
                    }
                }
                int duplicates = byId.values().stream().mapToInt(l -> l.size() - 1).sum();
                // at least once: only attempts cut off by the kill may be repeated
                assertThat(duplicates).as("repeats of attempts in flight at the kill")
                        .isLessThanOrEqualTo(JOBS - beforeKill);
            }
        }
    }

    private static Map<String, List<Received>> delivered(CallbackReceiver receiver, String topic) {
        Map<String, List<Received>> byId = new HashMap<>();
        for (Received r : receiver.received(r -> r.path().equals("/kill/" + topic))) {
            byId.computeIfAbsent(r.id(), k -> new java.util.ArrayList<>()).add(r);
        }
        return byId;
    }
}
