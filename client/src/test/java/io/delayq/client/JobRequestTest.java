package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the client writes and how it reads refusals, without a service. */
class JobRequestTest {

    @Test
    void writesTheServicesJobBody() {
        JobRequest request = JobRequest.builder()
                .id("a")
                .delay(Duration.ofSeconds(90))
                .payload(Map.of("k", "v"))
                .callback(new Callback("https://x.example/hook", Map.of("X-Key", "1")))
                .maxAttempts(5)
                .backoff(Backoff.exponential(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10), 0.1))
                .timeout(Duration.ofMillis(1500))
                .broadcast(false)
                .build();

        JsonNode json = Json.DEFAULT.valueToTree(request.body(Json.DEFAULT));

        assertThat(json.get("id").asText()).isEqualTo("a");
        assertThat(json.get("delayMs").asLong()).isEqualTo(90_000);
        assertThat(json.has("runAt")).isFalse();
        assertThat(json.get("payload").get("k").asText()).isEqualTo("v");
        assertThat(json.get("callback").get("headers").get("X-Key").asText()).isEqualTo("1");
        assertThat(json.get("backoff").get("type").asText()).isEqualTo("exponential");
        assertThat(json.get("backoff").get("initial").asText()).isEqualTo("1000ms");
        assertThat(json.get("backoff").get("max").asText()).isEqualTo("600000ms");
        assertThat(json.get("timeout").asText()).isEqualTo("1500ms");
        assertThat(json.get("broadcast").asBoolean()).isFalse();
    }

    @Test
    void leavesOutWhatWasNotSet() {
        Instant at = Instant.parse("2030-01-01T09:00:00Z");

        JsonNode json = Json.DEFAULT.valueToTree(JobRequest.builder().runAt(at).payload(7).build().body(Json.DEFAULT));

        assertThat(json.get("runAt").asText()).isEqualTo("2030-01-01T09:00:00Z");
        assertThat(json.get("payload").asInt()).isEqualTo(7);
        assertThat(json.size()).isEqualTo(2);
    }

    @Test
    void refusesContradictionsBeforeSending() {
        assertThatThrownBy(() -> JobRequest.builder().delay(Duration.ZERO).runAt(Instant.now()).payload(1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not both");
        assertThatThrownBy(() -> JobRequest.builder().id("x").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
        assertThatThrownBy(() -> JobRequest.builder().delay(Duration.ofSeconds(-1)).payload(1).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(Backoff::schedule).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Retry.in(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mapsProblemAnswersToTypedExceptions() {
        DelayqClient client = DelayqClient.builder().baseUri("http://127.0.0.1:1").build();
        byte[] stale = ("{\"type\":\"urn:delayq:problem:stale-lease\",\"title\":\"Conflict\",\"status\":409,"
                + "\"detail\":\"the lease token is not current\"}").getBytes(StandardCharsets.UTF_8);

        DelayqException conflict = client.problem(409, stale);

        assertThat(conflict).isInstanceOf(ConflictException.class);
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.title()).isEqualTo("Conflict");
        assertThat(conflict.detail()).isEqualTo("the lease token is not current");
        assertThat(conflict.type()).isEqualTo("urn:delayq:problem:stale-lease");
        assertThat(conflict.getMessage()).isEqualTo("409 Conflict: the lease token is not current");
        assertThat(client.problem(404, new byte[0])).isInstanceOf(NotFoundException.class);
        assertThat(client.problem(401, null)).isInstanceOf(UnauthorizedException.class);
        assertThat(client.problem(403, new byte[0])).isInstanceOf(UnauthorizedException.class);
        assertThat(client.problem(400, new byte[0])).isInstanceOf(ValidationException.class);
        assertThat(client.problem(422, new byte[0])).isInstanceOf(ValidationException.class);
        DelayqException gateway = client.problem(502, "<html>bad gateway</html>".getBytes(StandardCharsets.UTF_8));
        assertThat(gateway).isExactlyInstanceOf(DelayqException.class);
        assertThat(gateway.detail()).contains("bad gateway");
    }

    @Test
    void writesResetSettingsAsNull() {
        JsonNode json = Json.DEFAULT.valueToTree(TopicSettingsUpdate.create().paused(true).reset("callback")
                .timeout(Duration.ofSeconds(3)));

        assertThat(json.get("paused").asBoolean()).isTrue();
        assertThat(json.get("callback").isNull()).isTrue();
        assertThat(json.get("timeout").asText()).isEqualTo("3000ms");
    }
}
