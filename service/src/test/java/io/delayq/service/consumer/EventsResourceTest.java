package io.delayq.service.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.TraceContext;
import io.dropwizard.core.Configuration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Broadcast event streams on two service instances sharing one Redis. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EventsResourceTest {
    static final DropwizardAppExtension<Configuration> ONE =
            new DropwizardAppExtension<>(ConsumerTestApp.class, ConsumerTestApp.config());
    static final DropwizardAppExtension<Configuration> TWO =
            new DropwizardAppExtension<>(ConsumerTestApp.class, ConsumerTestApp.config());
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The producer's trace context, which listeners get with the event. */
    static final TraceContext TRACE = new TraceContext("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "rojo=00f067aa0ba902b7");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aBroadcastReachesSubscribersOnEveryInstance() throws Exception {
        String topic = "t-" + UUID.randomUUID();
        try (Stream_ first = open(ONE, topic); Stream_ second = open(TWO, topic);
             Stream_ otherTopic = open(TWO, "t-" + UUID.randomUUID())) {
            assertThat(first.status).isEqualTo(200);
            assertThat(first.contentType).startsWith("text/event-stream");
            assertThat(first.next()).startsWith(":"); // the greeting: the subscription is registered
            assertThat(second.next()).startsWith(":");
            assertThat(otherTopic.next()).startsWith(":");

            long runAt = System.currentTimeMillis();
            ONE.<ConsumerTestApp>getApplication().store().publishBroadcast(broadcastJob(topic, "news-1", runAt));

            for (Stream_ stream : List.of(first, second)) {
                List<String> event = stream.nextEvent();
                assertThat(event).contains("event: job", "id: news-1");
                String data = event.stream().filter(l -> l.startsWith("data:")).findFirst().orElseThrow();
                JsonNode json = JSON.readTree(data.substring("data:".length()));
                assertThat(json.get("id").asText()).isEqualTo("news-1");
                assertThat(json.get("topic").asText()).isEqualTo(topic);
                assertThat(Instant.parse(json.get("runAt").asText()).toEpochMilli()).isEqualTo(runAt);
                assertThat(json.get("payload")).isEqualTo(JSON.readTree("{\"headline\":\"hi\"}"));
                assertThat(json.get("traceparent").asText()).isEqualTo(TRACE.traceparent());
                assertThat(json.get("tracestate").asText()).isEqualTo(TRACE.tracestate());
            }
            Thread.sleep(300);
            assertThat(otherTopic.lines).allSatisfy(line -> assertThat(line).matches("(:.*)?"));
        }
    }

    @Test
    void idleStreamsGetKeepAliveComments() throws Exception {
        try (Stream_ stream = open(ONE, "t-" + UUID.randomUUID())) {
            assertThat(stream.next()).startsWith(": subscribed");
            long start = System.nanoTime();
            String line;
            do {
                line = stream.next();
            } while (line.isEmpty());

            assertThat(line).isEqualTo(": keep-alive");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
        }
    }

    @Test
    void anInvalidTopicIsRefused() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + ONE.getLocalPort() + "/v1/topics/no%20spaces/events"))
                .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isBetween(400, 422);
    }

    static Job broadcastJob(String topic, String id, long runAt) {
        return new Job(topic, id, "{\"headline\":\"hi\"}", runAt, JobState.LEASED, 1, 1, null, null, null, true,
                Delivery.PUSH, runAt, null, null, List.of(), TRACE);
    }

    private static Stream_ open(DropwizardAppExtension<Configuration> app, String topic) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://localhost:" + app.getLocalPort() + "/v1/topics/" + topic + "/events"))
                .header("Accept", "text/event-stream").build();
        HttpResponse<Stream<String>> response = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofLines())
                .get(10, TimeUnit.SECONDS);
        return new Stream_(response);
    }

    /** One open event stream, its lines read into a queue by a background thread. */
    private static final class Stream_ implements AutoCloseable {
        final int status;
        final String contentType;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final Stream<String> body;

        Stream_(HttpResponse<Stream<String>> response) {
            this.status = response.statusCode();
            this.contentType = response.headers().firstValue("Content-Type").orElse("");
            this.body = response.body();
            Thread reader = new Thread(() -> {
                try {
                    body.forEach(lines::add);
                } catch (RuntimeException closed) {
                    // the test closed the stream
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        String next() throws InterruptedException {
            String line = lines.poll(10, TimeUnit.SECONDS);
            assertThat(line).as("a line within 10 s").isNotNull();
            return line;
        }

        /** The lines of the next event, comments and blank separators skipped. */
        List<String> nextEvent() throws InterruptedException {
            List<String> event = new ArrayList<>();
            while (true) {
                String line = next();
                if (line.isEmpty()) {
                    if (!event.isEmpty()) {
                        return event;
                    }
                } else if (!line.startsWith(":")) {
                    event.add(line);
                }
            }
        }

        @Override
        public void close() {
            body.close();
        }
    }
}
