package io.delayq.testing;

import io.delayq.testing.CallbackReceiver.Outcome;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.testing.CallbackReceiver.Reply;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The receiver over real sockets, driven by the JDK's HTTP client (as the service's callbacks are by Jetty's). */
class CallbackReceiverTest {
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private HttpResponse<String> post(String url, String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void recordsEachRequestAndAnswersByPathUntilScripted() throws Exception {
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.slowMs(300);
            HttpResponse<String> ok = post(receiver.url("/ok?x=1"), "{\"a\":1}",
                    Map.of("Delayq-Id", "j1", "Delayq-Topic", "t", "Delayq-Attempt", "2"));
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("status 200");
            assertThat(post(receiver.url("/fail"), "", Map.of()).statusCode()).isEqualTo(500);
            long t0 = System.currentTimeMillis();
            assertThat(post(receiver.url("/slow"), "", Map.of()).statusCode()).isEqualTo(200);
            assertThat(System.currentTimeMillis() - t0).isGreaterThanOrEqualTo(300);

            Received first = receiver.forJob("j1").get(0);
            assertThat(first.method()).isEqualTo("POST");
            assertThat(first.path()).isEqualTo("/ok");
            assertThat(first.topic()).isEqualTo("t");
            assertThat(first.attempt()).isEqualTo(2);
            assertThat(first.header("DELAYQ-ID")).isEqualTo("j1");
            assertThat(first.bodyText()).isEqualTo("{\"a\":1}");
            assertThat(receiver.received()).extracting(Received::path).containsExactly("/ok", "/fail", "/slow");

            receiver.answer(r -> r.path().equals("/gone") ? new Reply(410, 0, Map.of("Retry-After", "7"))
                    : Reply.status(204));
            HttpResponse<String> gone = post(receiver.url("/gone"), "", Map.of());
            assertThat(gone.statusCode()).isEqualTo(410);
            assertThat(gone.headers().firstValue("Retry-After")).contains("7");
            assertThat(post(receiver.url("/fail"), "", Map.of()).statusCode()).isEqualTo(204);
            assertThat(receiver.await(r -> true, 5, Duration.ofSeconds(1))).hasSize(5);
        }
    }

    @Test
    void countsTheRequestsItHoldsAtOnce() throws Exception {
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.answer(r -> Reply.after(400, 200));
            List<CompletableFuture<HttpResponse<Void>>> calls = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 3; i++) {
                calls.add(http.sendAsync(HttpRequest.newBuilder(URI.create(receiver.url("/c"))).GET().build(),
                        HttpResponse.BodyHandlers.discarding()));
            }
            for (CompletableFuture<HttpResponse<Void>> c : calls) {
                assertThat(c.get().statusCode()).isEqualTo(200);
            }
            assertThat(receiver.maxConcurrent()).isEqualTo(3);
        }
    }

    @Test
    void goesDownAndComesBackOnTheSamePort() throws Exception {
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            int port = receiver.port();
            assertThat(post(receiver.url("/a"), "", Map.of()).statusCode()).isEqualTo(200);
            receiver.stop();
            // a client of its own: the shared one's pooled connection to the receiver is not what is tested here
            HttpClient fresh = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(2)).build();
            assertThatThrownBy(() -> fresh.send(HttpRequest.newBuilder(URI.create(receiver.url("/b")))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(ConnectException.class);
            receiver.start();
            assertThat(receiver.port()).isEqualTo(port);
            assertThat(post(receiver.url("/c"), "", Map.of()).statusCode()).isEqualTo(200);
            assertThat(receiver.received()).extracting(Received::path).containsExactly("/a", "/c");
        }
        try (CallbackReceiver again = onAPortJustFreed()) {
            assertThat(post(again.url("/d"), "", Map.of()).statusCode()).isEqualTo(200);
        }
    }

    /**
     * A receiver made with {@link CallbackReceiver#onPort} on the port another one just gave up. The port comes from
     * the ephemeral range, so in the moment between the two any process's outgoing connection may take it (seen once
     * in a full build: "Address already in use"); then another port is tried, at most five.
     */
    private static CallbackReceiver onAPortJustFreed() {
        for (int attempt = 1; ; attempt++) {
            int port;
            try (CallbackReceiver first = new CallbackReceiver()) {
                port = first.port();
            }
            try {
                return CallbackReceiver.onPort(port);
            } catch (UncheckedIOException taken) {
                if (attempt == 5 || !(taken.getCause() instanceof java.net.BindException)) {
                    throw taken;
                }
            }
        }
    }

    @Test
    void holdsAnswersUntilReleasedAndSeesACallerThatGaveUp() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.answer(r -> Reply.heldUntil(release));
            receiver.onAnswered((request, reply, outcome) -> outcomes.add(outcome));
            HttpRequest giveUp = HttpRequest.newBuilder(URI.create(receiver.url("/h"))).timeout(Duration.ofMillis(300))
                    .GET().build();
            assertThatThrownBy(() -> http.send(giveUp, HttpResponse.BodyHandlers.discarding()))
                    .isInstanceOf(IOException.class);
            CompletableFuture<HttpResponse<Void>> held = http.sendAsync(
                    HttpRequest.newBuilder(URI.create(receiver.url("/h"))).GET().build(),
                    HttpResponse.BodyHandlers.discarding());
            receiver.await(r -> true, 2, Duration.ofSeconds(5));
            Thread.sleep(300);
            assertThat(held).isNotDone();
            release.countDown();
            assertThat(held.get().statusCode()).isEqualTo(200);
            assertThat(post(receiver.url("/after"), "", Map.of()).statusCode()).isEqualTo(200);
            long deadline = System.currentTimeMillis() + 5_000;
            while (outcomes.size() < 3 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertThat(outcomes).containsExactlyInAnyOrder(Outcome.ABANDONED, Outcome.ANSWERED, Outcome.ANSWERED);
        }
    }

    @Test
    void handsEachRequestToItsConsumerOverOneKeepAliveConnectionAndReadsChunkedBodies() throws Exception {
        List<Received> seen = new CopyOnWriteArrayList<>();
        try (CallbackReceiver receiver = new CallbackReceiver(seen::add);
             Socket s = new Socket("127.0.0.1", receiver.port())) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(("POST /one HTTP/1.1\r\nHost: x\r\nDelayq-Id: 1\r\nContent-Length: 2\r\n\r\nhi"
                    + "POST /two HTTP/1.1\r\nHost: x\r\nDelayq-Id: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answers = "";
            long deadline = System.currentTimeMillis() + 5_000;
            byte[] buf = new byte[1024];
            while (answers.split("HTTP/1.1 200", -1).length < 3 && System.currentTimeMillis() < deadline) {
                answers += new String(buf, 0, in.read(buf), StandardCharsets.US_ASCII);
            }
            assertThat(answers.split("HTTP/1.1 200 OK", -1)).hasSize(3);
            assertThat(seen).extracting(Received::bodyText).containsExactly("hi", "abcde");
            assertThat(receiver.received()).as("a consumer's receiver keeps nothing").isEmpty();
        }
    }
}
