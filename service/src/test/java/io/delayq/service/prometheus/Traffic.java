package io.delayq.service.prometheus;

import io.delayq.core.testing.Await;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Traffic of every kind the metrics count, made through the API of running services (real HTTP, a real receiver):
 * deliveries, failed attempts and dead jobs, pull leases (one granted, one parked), an event-stream subscriber, an
 * open circuit. Each call waits until the store shows its effect, so a scrape afterwards sees it. Given several
 * services (on one store), jobs are scheduled and streams opened on each in turn: consecutive jobs of a topic go
 * through different instances.
 */
final class Traffic implements AutoCloseable {
    private static final HttpClient STREAMS = HttpClient.newHttpClient();

    private final List<Api> producers;
    private final Api producer;
    private final CallbackReceiver receiver;
    private int turn;
    private final List<CompletableFuture<?>> open = new ArrayList<>();
    private final List<InputStream> streams = new CopyOnWriteArrayList<>();

    /** @param producers producer-token clients of the services, all on one store */
    Traffic(CallbackReceiver receiver, Api... producers) {
        this.producers = List.of(producers);
        this.producer = producers[0];
        this.receiver = receiver;
    }

    /** The next service in turn. */
    private synchronized Api next() {
        return producers.get(turn++ % producers.size());
    }

    /** Schedules {@code n} jobs due at once whose callback answers 200, and waits until all arrived. */
    void deliver(String topic, int n) {
        int before = receiver.received(r -> r.path().equals("/ok/" + topic)).size();
        for (int i = 0; i < n; i++) {
            schedule(topic, "{\"payload\": {}, \"callback\": {\"url\": \"%s\"}}"
                    .formatted(receiver.url("/ok/" + topic)));
        }
        receiver.await(r -> r.path().equals("/ok/" + topic), before + n, Duration.ofSeconds(30));
    }

    /** Schedules {@code n} jobs with one attempt each whose callback answers 500: n failed attempts, n dead jobs. */
    void kill(String topic, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(schedule(topic, "{\"payload\": {}, \"maxAttempts\": 1, \"callback\": {\"url\": \"%s\"}}"
                    .formatted(receiver.url("/fail/" + topic))));
        }
        for (String id : ids) {
            Await.until(id + " dead", 30_000, () -> "DEAD".equals(state(topic, id)));
        }
    }

    /** Schedules {@code n} jobs {@code delayMs} ahead (pull jobs: no callback), which stay scheduled meanwhile. */
    void scheduleLater(String topic, int n, long delayMs) {
        for (int i = 0; i < n; i++) {
            schedule(topic, "{\"payload\": {}, \"delayMs\": " + delayMs + "}");
        }
    }

    /** {@code n} pull jobs, each leased by a consumer for five minutes. */
    void lease(String topic, int n) {
        for (int i = 0; i < n; i++) {
            schedule(topic, "{\"payload\": {}}");
        }
        int leased = 0;
        while (leased < n) {
            Answer answer = producer.as(TestApps.CONSUMER).post("/v1/topics/" + topic + "/leases",
                    "{\"max\": %d, \"waitMs\": 10000, \"leaseMs\": 300000}".formatted(n - leased));
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            assertThat(answer.json().path("leases")).as(answer.toString()).isNotEmpty();
            leased += answer.json().path("leases").size();
        }
    }

    /** A long poll on a topic with nothing due, parked for up to a minute (until {@link #close}). */
    void parkLeaseRequest(String topic) {
        open.add(STREAMS.sendAsync(request(next(), "/v1/topics/" + topic + "/leases", TestApps.CONSUMER)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"max\": 1, \"waitMs\": 60000}")).build(),
                HttpResponse.BodyHandlers.discarding()));
    }

    /** An event-stream subscriber of the topic, connected until {@link #close}. */
    void subscribe(String topic) {
        CompletableFuture<HttpResponse<InputStream>> stream = STREAMS.sendAsync(
                request(next(), "/v1/topics/" + topic + "/events", TestApps.CONSUMER)
                        .header("Accept", "text/event-stream").GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        open.add(stream.thenAccept(response -> streams.add(response.body())));
    }

    /**
     * Opens the circuit of {@code down}'s origin: a topic whose callback answers 503, with a breaker opening after 2
     * failures (probes five minutes apart: none during a test), and {@code jobs} jobs, waiting until all of them are held. The services must
     * run with the breaker enabled.
     *
     * @return the jobs' ids
     */
    List<String> openCircuit(String topic, CallbackReceiver down, int jobs) {
        down.answer(r -> CallbackReceiver.Reply.status(503));
        Answer put = producer.as(TestApps.ADMIN).put("/v1/topics/" + topic, """
                {"callback": {"url": "%s"}, "maxAttempts": 10, "backoff": {"type": "schedule", "delays": ["200ms"]},
                 "breaker": {"failureThreshold": 2, "probeInterval": "5m", "maxProbeInterval": "5m"}}"""
                .formatted(down.url("/down/" + topic)));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            ids.add(schedule(topic, "{\"payload\": {}}"));
        }
        Api viewer = producer.as(TestApps.ADMIN);
        Await.until("a circuit open with all " + jobs + " jobs held", 30_000, () -> {
            for (var c : viewer.get("/v1/admin/circuits").json().path("items")) {
                if (c.path("state").asText().equals("OPEN") && c.path("heldJobs").asLong() == jobs) {
                    return true;
                }
            }
            return false;
        });
        return ids;
    }

    /** The attempts the store counts for a job. */
    int attempts(String topic, String id) {
        return producer.get("/v1/topics/" + topic + "/jobs/" + id).json().path("attempts").asInt();
    }

    /** Schedules a job through the next service in turn; its id. */
    String schedule(String topic, String body) {
        Answer created = next().post("/v1/topics/" + topic + "/jobs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private String state(String topic, String id) {
        return producer.get("/v1/topics/" + topic + "/jobs/" + id).json().path("state").asText();
    }

    private static HttpRequest.Builder request(Api service, String path, String token) {
        return HttpRequest.newBuilder(URI.create(service.base() + path)).header("Authorization", "Bearer " + token);
    }

    @Override
    public void close() {
        open.forEach(f -> f.cancel(true));
        for (InputStream stream : streams) {
            try {
                stream.close();
            } catch (IOException e) {
                // the service is going away anyway
            }
        }
    }
}
