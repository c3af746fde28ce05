package io.delayq.service.notice;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Attempt;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.TraceContext;
import io.delayq.core.archive.DeadLetter;
import io.delayq.service.delivery.Signatures;
import io.delayq.service.support.SignatureSpec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The body and headers of a dead notice, from a dead letter. */
class DeadNoticeRequestTest {
    private static final Callback TARGET = new Callback("http://127.0.0.1:9/gave-up",
            Map.of("X-Hook-Key", "k1", "Delayq-Event", "spoofed"));
    private final DeadNoticeRequest request = new DeadNoticeRequest(new Signatures("s3cret"));

    @Test
    void theBodySaysWhichJobDiedHowAndCarriesItsPayloadVerbatim() throws Exception {
        DeadLetter letter = letter(List.of(new Attempt(1, 1_000, "callback answered HTTP 502", 502),
                new Attempt(2, 2_000, "held: circuit open", null, true)), null);

        JsonNode body = new ObjectMapper().readTree(request.body(letter));

        assertThat(new String(request.body(letter), StandardCharsets.UTF_8))
                .contains("\"payload\":{\"amount\":1.50,\"big\":1e400}");
        assertThat(body.path("cause").asText()).as("why it died (issue 29)").isEqualTo("ATTEMPTS_EXHAUSTED");
        assertThat(body.path("topic").asText()).isEqualTo("payments");
        assertThat(body.path("id").asText()).isEqualTo("notify-7");
        assertThat(body.path("attempts").asInt()).isEqualTo(1);
        assertThat(body.path("maxAttempts").asInt()).isEqualTo(1);
        assertThat(body.path("lastError").asText()).isEqualTo("callback answered HTTP 502");
        assertThat(body.path("lastStatus").asInt()).as("of the last real attempt, not the hold").isEqualTo(502);
        assertThat(body.path("deadAt").asText()).isEqualTo(Instant.ofEpochMilli(3_000).toString());
        assertThat(body.path("deadLetter").asText()).isEqualTo("payments/notify-7/500");
    }

    @Test
    void anAttemptWithoutAnAnswerLeavesLastStatusOut() throws Exception {
        DeadLetter letter = letter(List.of(new Attempt(1, 1_000, "the callback did not answer within 30000 ms", null)),
                null);

        assertThat(new ObjectMapper().readTree(request.body(letter)).has("lastStatus")).isFalse();
    }

    @Test
    void headersAreTheTargetsThenDelayqsSignedOverTheBodyWithTheJobsTraceContext() {
        TraceContext trace = new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v");
        DeadLetter letter = letter(List.of(), trace);
        byte[] body = request.body(letter);

        Map<String, String> headers = request.headers(letter, TARGET, 2, body);

        assertThat(headers).containsEntry("X-Hook-Key", "k1")
                .containsEntry("Delayq-Event", "dead")
                .containsEntry("Delayq-Id", "notify-7")
                .containsEntry("Delayq-Topic", "payments")
                .containsEntry("Delayq-Notice-Attempt", "2")
                .containsEntry("traceparent", trace.traceparent())
                .containsEntry("tracestate", "k=v");
        assertThat(SignatureSpec.verifies("s3cret", headers.get(Signatures.HEADER), SignatureSpec.DEAD, "payments",
                "notify-7", "2", body)).isTrue();
        assertThat(SignatureSpec.verifies("s3cret", headers.get(Signatures.HEADER), SignatureSpec.CALLBACK, "payments",
                "notify-7", "2", body)).as("not as a callback").isFalse();
        assertThat(SignatureSpec.verifies("other", headers.get(Signatures.HEADER), SignatureSpec.DEAD, "payments",
                "notify-7", "2", body)).isFalse();
    }

    private static DeadLetter letter(List<Attempt> history, TraceContext trace) {
        Job job = new Job("payments", "notify-7", "{\"amount\":1.50,\"big\":1e400}", 600, JobState.DEAD, 1, 1, null,
                null, null, false, Delivery.PULL, 500, 3_000L, history.isEmpty() ? "gone" : history.get(0).error(),
                history, trace, TARGET);
        return new DeadLetter(DeadLetter.keyOf(job), job, 3_000, 0, List.of());
    }
}
