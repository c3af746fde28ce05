package io.delayq.fault;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Receivers over real HTTP: what they answer, and what they record. */
class ReceiverTest {
    private final DeliveryLog log = new DeliveryLog();
    private Receiver receiver;

    @AfterEach
    void close() {
        receiver.close();
    }

    @Test
    void anOkReceiverAnswers200AndRecordsTheDelayqHeaders() throws Exception {
        receiver = new Receiver(Receiver.Behaviour.OK, log);
        long before = System.currentTimeMillis();

        assertThat(post(receiver.url("t"), "j1", Duration.ofSeconds(5)).statusCode()).isEqualTo(200);

        awaitRecords("t/j1", 1);
        Delivery d = log.of("t/j1").get(0);
        assertThat(d.attempt()).isEqualTo(3);
        assertThat(d.answer()).isEqualTo(Delivery.Answer.OK);
        assertThat(d.arrivedAtMs()).isGreaterThanOrEqualTo(before);
        assertThat(log.delivered("t/j1")).isTrue();
    }

    @Test
    void aFailingReceiverAnswers500AndTheJobIsNotDelivered() throws Exception {
        receiver = new Receiver(Receiver.Behaviour.FAIL, log);

        assertThat(post(receiver.url("t"), "j2", Duration.ofSeconds(5)).statusCode()).isEqualTo(500);

        awaitRecords("t/j2", 1);
        assertThat(log.of("t/j2")).extracting(Delivery::answer).containsExactly(Delivery.Answer.FAILED);
        assertThat(log.delivered("t/j2")).isFalse();
    }

    @Test
    void aHangingReceiverHoldsUntilTheCallerGivesUpThenAnswersAtOnceAfterTheRelease() throws Exception {
        receiver = new Receiver(Receiver.Behaviour.HANG, log);

        URI url = URI.create(receiver.url("t"));
        try (Socket caller = new Socket(url.getHost(), url.getPort())) {
            caller.getOutputStream().write(("POST " + url.getPath() + " HTTP/1.1\r\nHost: x\r\nDelayq-Topic: t\r\n"
                    + "Delayq-Id: j3\r\nDelayq-Attempt: 1\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
            caller.setSoTimeout(300);
            assertThatThrownBy(() -> caller.getInputStream().read()).as("no answer while hanging")
                    .isInstanceOf(SocketTimeoutException.class);
        } // the caller gives up, as the service does at its timeout
        Tally.await(System.currentTimeMillis() + 5_000, () -> !log.of("t/j3").isEmpty());
        assertThat(log.of("t/j3")).extracting(Delivery::answer).containsExactly(Delivery.Answer.HUNG);

        receiver.release();
        assertThat(post(receiver.url("t"), "j3", Duration.ofSeconds(5)).statusCode()).isEqualTo(200);
        awaitRecords("t/j3", 2);
        assertThat(log.of("t/j3")).extracting(Delivery::answer)
                .containsExactly(Delivery.Answer.HUNG, Delivery.Answer.OK);
    }

    /** The receiver records a request once its answer is written: the caller may read the answer a moment before. */
    private void awaitRecords(String job, int count) throws InterruptedException {
        Tally.await(System.currentTimeMillis() + 5_000, () -> log.of(job).size() >= count);
    }

    private HttpResponse<Void> post(String url, String id, Duration timeout) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
                        .header("Delayq-Topic", "t").header("Delayq-Id", id).header("Delayq-Attempt", "3")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"x\":1}")).build(),
                HttpResponse.BodyHandlers.discarding());
    }
}
