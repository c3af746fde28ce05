package io.delayq.service.consumer;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each instance bounds its event streams and its parked long polls (issue 26, finding 15): beyond
 * {@code consumer.maxEventStreams} and {@code consumer.maxParkedLeaseRequests} (2 each here, 1,000 by default) a
 * request is refused with 429 problem+json and {@code Retry-After}, counted, and the streams and polls already open are
 * untouched.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ConsumerLimitsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("consumer.maxEventStreams", "2"),
            ConfigOverride.config("consumer.maxParkedLeaseRequests", "2"));
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void eventStreamsBeyondTheLimitAreRefusedWith429() throws Exception {
        Api consumer = TestApps.api(APP).as(TestApps.CONSUMER);
        String topic = TestApps.topic();
        List<InputStream> open = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                HttpResponse<InputStream> stream = HTTP.send(events(consumer, topic),
                        HttpResponse.BodyHandlers.ofInputStream());
                assertThat(stream.statusCode()).isEqualTo(200);
                open.add(stream.body());
            }
            Answer refused = consumer.send(consumer.request("/v1/topics/" + topic + "/events")
                    .header("Accept", "text/event-stream").timeout(Duration.ofSeconds(10)).GET());
            assertThat(refused.status()).as(refused.toString()).isEqualTo(429);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.detail()).contains("consumer.maxEventStreams");
            assertThat(Long.parseLong(refused.header("Retry-After"))).isPositive();
            assertThat(metrics().path("meters").path("delayq.consumer.sse.refused").path("count").asLong())
                    .isEqualTo(1);
            assertThat(metrics().path("gauges").path("delayq.consumer.sse.subscribers").path("value").asInt())
                    .as("the open streams are untouched").isEqualTo(2);
        } finally {
            for (InputStream in : open) {
                in.close();
            }
        }
    }

    @Test
    void parkedLongPollsBeyondTheLimitAreRefusedWith429() {
        Api consumer = TestApps.api(APP).as(TestApps.CONSUMER);
        String topic = TestApps.topic();
        List<CompletableFuture<Answer>> parked = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            parked.add(CompletableFuture.supplyAsync(() -> consumer.post("/v1/topics/" + topic + "/leases",
                    "{\"max\": 1, \"waitMs\": 20000}")));
        }
        Await.until("two polls parked", Duration.ofSeconds(10), () -> metrics().path("gauges")
                .path("delayq.consumer.parkedLeaseRequests").path("value").asInt() == 2);

        Answer refused = consumer.post("/v1/topics/" + topic + "/leases", "{\"max\": 1, \"waitMs\": 20000}");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(429);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.detail()).contains("consumer.maxParkedLeaseRequests");
        assertThat(Long.parseLong(refused.header("Retry-After"))).isPositive();
        assertThat(metrics().path("meters").path("delayq.consumer.lease-requests-refused").path("count").asLong())
                .isEqualTo(1);

        Answer job = TestApps.api(APP).post("/v1/topics/" + topic + "/jobs", "{\"id\": \"j\", \"payload\": {}}");
        assertThat(job.status()).isEqualTo(201);
        Await.until("a parked poll gets the job", Duration.ofSeconds(10),
                () -> parked.stream().anyMatch(p -> p.isDone() && p.join().json().path("leases").size() == 1));
    }

    private static HttpRequest events(Api api, String topic) {
        return api.request("/v1/topics/" + topic + "/events").header("Accept", "text/event-stream").GET().build();
    }

    private static com.fasterxml.jackson.databind.JsonNode metrics() {
        return new Api("http://127.0.0.1:" + APP.getAdminPort(), null).get("/metrics").json();
    }

}
