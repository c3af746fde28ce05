package io.delayq.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the JSON layout configured (logging.appenders[].layout.type: json, here to a file), every log line written
 * while a request is served carries its X-Request-Id in the MDC, and the response echoes the id.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RequestIdLoggingTest {
    static final Path LOG = tempLog();
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("logging.level", "INFO"),
            ConfigOverride.config("logging.appenders[0].type", "file"),
            ConfigOverride.config("logging.appenders[0].currentLogFilename", LOG.toString()),
            ConfigOverride.config("logging.appenders[0].archive", "false"),
            ConfigOverride.config("logging.appenders[0].layout.type", "json"));
    static final ObjectMapper JSON = new ObjectMapper();

    private static Path tempLog() {
        try {
            return Files.createTempDirectory("delayq-json-log").resolve("delayq.json.log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Answer put(String path, String body, String requestId) {
        Api api = TestApps.api(APP).as(TestApps.ADMIN);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api.base() + path))
                .header("Authorization", "Bearer " + TestApps.ADMIN)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body));
        if (requestId != null) {
            request.header(RequestIdFilter.HEADER, requestId);
        }
        return api.send(request);
    }

    /** Every line of the log file parsed as JSON (a line that is not JSON fails the test). */
    private static List<JsonNode> logLines() throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(LOG)) {
            if (!line.isBlank()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    /** The audit lines (INFO, written on the request's thread) about {@code topic}, waiting for the appender. */
    private static List<JsonNode> auditLinesAbout(String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<JsonNode> found;
        do {
            found = logLines().stream()
                    .filter(l -> l.path("message").asText().startsWith("audit:")
                            && l.path("message").asText().contains(topic))
                    .toList();
            if (!found.isEmpty()) {
                return found;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        return found;
    }

    @Test
    void theCallersIdIsInEveryLogLineOfTheRequestAndInTheResponse() throws Exception {
        String topic = TestApps.topic();
        Answer answer = put("/v1/topics/" + topic, "{\"paused\": true}", "req-42.abc_DEF");
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        assertThat(answer.header(RequestIdFilter.HEADER)).isEqualTo("req-42.abc_DEF");

        List<JsonNode> lines = auditLinesAbout(topic);
        assertThat(lines).as("the audit line of the request, as JSON").isNotEmpty();
        assertThat(lines).allSatisfy(line -> {
            assertThat(line.path("level").asText()).isEqualTo("INFO");
            assertThat(line.path("mdc").path(RequestIdFilter.MDC_KEY).asText()).isEqualTo("req-42.abc_DEF");
        });
        // lines written outside any request carry no id (the MDC is cleared after each request)
        assertThat(logLines()).anySatisfy(line -> assertThat(line.path("mdc").has(RequestIdFilter.MDC_KEY)).isFalse());
    }

    @Test
    void anInvalidOrMissingIdIsReplacedByAGeneratedOne() throws Exception {
        String tooLong = "a".repeat(101);
        for (String sent : new String[] {tooLong, "has space", "quote\"", null}) {
            String topic = TestApps.topic();
            Answer answer = put("/v1/topics/" + topic, "{\"paused\": true}", sent);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            String id = answer.header(RequestIdFilter.HEADER);
            assertThat(id).as("generated for %s", sent).isNotEqualTo(sent).matches("[0-9a-f-]{36}");
            assertThat(auditLinesAbout(topic)).singleElement()
                    .satisfies(line -> assertThat(line.path("mdc").path(RequestIdFilter.MDC_KEY).asText()).isEqualTo(id));
        }
        // the longest valid id is kept
        String longest = "b".repeat(100);
        assertThat(put("/v1/topics/" + TestApps.topic(), "{\"paused\": true}", longest)
                .header(RequestIdFilter.HEADER)).isEqualTo(longest);
    }
}
