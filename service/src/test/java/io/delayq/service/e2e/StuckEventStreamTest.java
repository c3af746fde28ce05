package io.delayq.service.e2e;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.service.support.TestStores;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * An event-stream client that never reads (a raw socket with a tiny receive buffer) must hold nothing else up:
 * broadcasts and wake-ups arrive on the same store notification thread. Before event streams had their own bounded
 * queues, such a client filled its 256-event buffer in Jersey's {@code SseBroadcaster}, whose drop handler then threw
 * ("Unknown subscriber") on the notification thread for every later broadcast of the topic, and the client was never
 * let go. The broadcasts are published straight into the test Redis, so this class runs on Redis only.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class StuckEventStreamTest {
    // With the safety sweep a minute apart, only a wake-up can find the job below in time.
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.sweepInterval", "1m"));
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    // 12 MB in 1,500 events: more than the socket buffers and the 4 MiB a subscriber may fall behind, and more events
    // than the 256 Jersey's SseBroadcaster buffered per subscriber before it blocked the publishing thread
    private static final int BROADCASTS = 1_500;
    private static final int PAYLOAD_BYTES = 8_000;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @Test
    void aClientThatNeverReadsIsDroppedAndDelaysNoWakeUpNorOtherSubscriber() throws Exception {
        assumeThat(TestStores.selected()).as("broadcasts are published into the test Redis").isEqualTo(TestStores.REDIS);
        String newsTopic = TestApps.topic();
        ch.qos.logback.classic.Logger notifications = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(
                "io.delayq.redis.Notifications");
        ListAppender<ILoggingEvent> listenerFailures = new ListAppender<>();
        listenerFailures.start();
        notifications.addAppender(listenerFailures);
        try (Socket stuck = stuckSubscriber(newsTopic);
             LineStream reader = subscribe(newsTopic);
             RedisJobStore publisher = RedisJobStore.connect(TestRedis.sharedUri())) {
            assertThat(reader.nextNonEmpty()).startsWith(": subscribed");
            String payload = "{\"filler\":\"" + "x".repeat(PAYLOAD_BYTES) + "\"}";
            for (int i = 0; i < BROADCASTS; i++) {
                publisher.publishBroadcast(new Job(newsTopic, "news-" + i, payload, System.currentTimeMillis(),
                        JobState.LEASED, 1, 1, null, null, null, true, Delivery.PUSH, System.currentTimeMillis(),
                        null, null, List.of()));
            }
            Thread.sleep(1_000); // the writes to the stuck client have filled every buffer on the way by now

            String jobTopic = TestApps.topic();
            Api api = TestApps.api(APP);
            Answer created = api.post("/v1/topics/" + jobTopic + "/jobs", """
                    {"id": "on-time", "payload": {"n": 1}, "callback": {"url": "%s"}}"""
                    .formatted(RECEIVER.url("/ok/" + jobTopic)));
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
            long runAt = Instant.parse(created.json().path("runAt").asText()).toEpochMilli();

            List<Received> got = RECEIVER.await(r -> r.path().equals("/ok/" + jobTopic), 1, Duration.ofSeconds(10));
            assertThat(got).as("the job's delivery").hasSize(1);
            assertThat(got.get(0).receivedAtMs() - runAt).as("ms late, with a stuck event-stream client")
                    .isLessThan(1_000);

            String lastBroadcast = "news-" + (BROADCASTS - 1);
            assertThat(reader.lastEventId(lastBroadcast, Duration.ofSeconds(30)))
                    .as("the subscriber that reads hears every broadcast").isEqualTo(lastBroadcast);
            assertThat(listenerFailures.list).extracting(ILoggingEvent::getFormattedMessage)
                    .as("failures on the store's notification thread").isEmpty();
            assertThat(APP.getEnvironment().metrics().meter("delayq.consumer.sse.dropped").getCount())
                    .as("the client that cannot keep up is dropped").isEqualTo(1);
            long received = drain(stuck);
            assertThat(received).as("bytes the stuck client got before its connection was closed")
                    .isLessThan((long) BROADCASTS * PAYLOAD_BYTES);
        } finally {
            notifications.detachAppender(listenerFailures);
        }
    }

    /**
     * Reads what the server sent the stuck client, up to the end of its connection.
     *
     * @return the bytes read
     * @throws AssertionError when the connection is still open after 10 s (the client was not let go)
     */
    private static long drain(Socket socket) throws Exception {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                total += n;
            }
        } catch (SocketTimeoutException stillOpen) {
            throw new AssertionError("the server still holds the connection of the client that never read, after "
                    + total + " bytes", stillOpen);
        } catch (SocketException reset) {
            // the server aborted the connection: it ended
        }
        return total;
    }

    /** Subscribes over a raw socket with a tiny receive buffer, and never reads a byte. */
    private static Socket stuckSubscriber(String topic) throws Exception {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(1_024);
        socket.connect(new InetSocketAddress("127.0.0.1", APP.getLocalPort()), 5_000);
        socket.getOutputStream().write(("GET /v1/topics/" + topic + "/events HTTP/1.1\r\nHost: localhost\r\n"
                + "Accept: text/event-stream\r\nAuthorization: Bearer " + TestApps.CONSUMER + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        Thread.sleep(500); // subscribed by now
        return socket;
    }

    private static LineStream subscribe(String topic) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort()
                        + "/v1/topics/" + topic + "/events"))
                .header("Accept", "text/event-stream").header("Authorization", "Bearer " + TestApps.CONSUMER).build();
        HttpResponse<Stream<String>> response = HttpClient.newHttpClient()
                .sendAsync(request, HttpResponse.BodyHandlers.ofLines()).get(10, TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(200);
        return new LineStream(response.body());
    }

    /** The lines of an event stream, read by a background thread. */
    private static final class LineStream implements AutoCloseable {
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final Stream<String> body;

        LineStream(Stream<String> body) {
            this.body = body;
            Thread thread = new Thread(() -> {
                try {
                    body.forEach(lines::add);
                } catch (RuntimeException closed) {
                    // the test closed the stream
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        String nextNonEmpty() throws InterruptedException {
            while (true) {
                String line = lines.poll(10, TimeUnit.SECONDS);
                assertThat(line).as("a line within 10 s").isNotNull();
                if (!line.isEmpty()) {
                    return line;
                }
            }
        }

        /** The id of the last event once no new line has come for a second (or {@code max} has passed). */
        /**
         * The last event id read by the time {@code expected} arrives or {@code max} has passed. Not "the last before a
         * quiet second": with other test JVMs on the same cores, a second without a line does not mean the end.
         */
        String lastEventId(String expected, Duration max) throws InterruptedException {
            long until = System.nanoTime() + max.toNanos();
            String last = null;
            while (System.nanoTime() < until && !expected.equals(last)) {
                String line = lines.poll(1, TimeUnit.SECONDS);
                if (line != null && line.startsWith("id:")) {
                    last = line.substring(3).trim();
                }
            }
            return last;
        }

        @Override
        public void close() {
            body.close();
        }
    }
}
