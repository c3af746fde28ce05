package io.delayq.service.ratelimit;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.testing.CallbackReceiver;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code delivery.originRateLimits} (issue 29): two topics whose callbacks go to one limited origin share its limit;
 * the jobs over it are held (a history entry marked held, naming the origin) and delivered later at their first
 * attempt. The origin is {@code http://localhost:<port>} so that the configuration key has no dot (a
 * {@code ConfigOverride} path splits at dots).
 */
@Tag("both-stores")
class OriginRateLimitTest {
    private static final int PER_SECOND = 10;
    private static final int BURST = 2;
    private static final int JOBS_PER_TOPIC = 15;

    @Test
    void topicsSharingALimitedOriginShareItsLimitAndHeldJobsKeepTheirAttempt() throws Exception {
        ConcurrentLinkedQueue<CallbackReceiver.Received> received = new ConcurrentLinkedQueue<>();
        Set<String> warmed = ConcurrentHashMap.newKeySet();
        try (CallbackReceiver receiver = new CallbackReceiver(r -> {
            if (r.header("Delayq-Topic").startsWith("warm-")) {
                warmed.add(r.header("Delayq-Id"));
            } else {
                received.add(r);
            }
        })) {
            int port = Integer.parseInt(receiver.url("").replaceAll(".*:(\\d+).*", "$1"));
            String origin = "http://localhost:" + port;
            DropwizardTestSupport<DelayqConfiguration> app = TestApps.support(
                    ConfigOverride.config("delivery.originRateLimits." + origin + ".perSecond",
                            Integer.toString(PER_SECOND)),
                    ConfigOverride.config("delivery.originRateLimits." + origin + ".burst", Integer.toString(BURST)));
            app.before();
            try {
                Api api = new Api("http://127.0.0.1:" + app.getLocalPort(), TestApps.PRODUCER);
                // the first callback's cost (connection, code not compiled yet) out of the measured run
                String warm = "warm-" + TestApps.topic();
                post(api, warm, List.of(item("w", System.currentTimeMillis(), receiver.url("/warm"))));
                long until = System.currentTimeMillis() + 20_000;
                while (warmed.isEmpty() && System.currentTimeMillis() < until) {
                    Thread.sleep(50);
                }

                List<String> topics = List.of(TestApps.topic(), TestApps.topic());
                long dueAt = System.currentTimeMillis() + 1_500;
                for (String topic : topics) {
                    List<String> items = new ArrayList<>();
                    for (int i = 0; i < JOBS_PER_TOPIC; i++) {
                        items.add(item("o-" + i, dueAt, origin + "/" + topic));
                    }
                    post(api, topic, items);
                }
                int all = JOBS_PER_TOPIC * topics.size();
                long deadline = dueAt + 30_000;
                while (received.size() < all && System.currentTimeMillis() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(received).as("every job of both topics").hasSize(all);
                assertThat(received).as("delivered at its first attempt: holding used none")
                        .allSatisfy(r -> assertThat(r.header("Delayq-Attempt")).isEqualTo("1"));
                List<Long> arrivals = received.stream().map(CallbackReceiver.Received::receivedAtMs).sorted().toList();
                assertThat(RateLimitFleetTest.worstWindow(arrivals, 1_000))
                        .as("the origin's deliveries in the busiest second, both topics together")
                        .isLessThanOrEqualTo(PER_SECOND + BURST);

                int held = 0;
                for (String topic : topics) {
                    for (int i = 0; i < JOBS_PER_TOPIC; i++) {
                        JsonNode job = api.get("/v1/topics/" + topic + "/jobs/o-" + i).json();
                        assertThat(job.path("attempts").asInt()).as("%s", job).isEqualTo(1);
                        for (JsonNode h : job.path("history")) {
                            if (h.path("held").asBoolean()) {
                                held++;
                                assertThat(h.path("error").asText()).contains("rate limit of callback origin " + origin);
                            }
                        }
                    }
                }
                assertThat(held).as("jobs over the origin's limit were held").isGreaterThan(0);
                assertThat(app.getEnvironment().metrics().meter("delayq.ratelimit.origin-held").getCount())
                        .isEqualTo(held);
            } finally {
                app.after();
            }
        }
    }

    private static String item(String id, long runAtMs, String url) {
        return "{\"id\":\"" + id + "\",\"runAt\":\"" + Instant.ofEpochMilli(runAtMs) + "\",\"payload\":{\"n\":1},"
                + "\"callback\":{\"url\":\"" + url + "\"}}";
    }

    private static void post(Api api, String topic, List<String> items) {
        Api.Answer answer = api.post("/v1/topics/" + topic + "/jobs/batch", "{\"jobs\":[" + String.join(",", items)
                + "]}");
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        assertThat(answer.raw().body()).doesNotContain("\"status\":4", "\"status\":5");
    }
}
