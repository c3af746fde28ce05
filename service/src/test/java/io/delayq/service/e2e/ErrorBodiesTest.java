package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Reply;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a callback's (or an onDead target's) error answer said is not shown to producers unless the topic opts in
 * (issue 26, finding 11): a callback could be pointed at an internal service, and {@code lastError} would hand its
 * error body to whoever scheduled the job. Without {@code errorBodies: true} the error names the status only. Runs on
 * both stores (e2e-on-postgres).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class ErrorBodiesTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("deadNotices.maxAttempts", "1"),
            ConfigOverride.config("deadNotices.pollInterval", "100ms"));
    /** Answers 500 with the body "status 500" to everything. */
    static final CallbackReceiver RECEIVER = new CallbackReceiver();

    private Api api;
    private Api admin;
    private String topic;

    @BeforeAll
    static void failEverything() {
        RECEIVER.answer(r -> Reply.status(500));
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        api = TestApps.api(APP);
        admin = api.as(TestApps.ADMIN);
        topic = TestApps.topic();
    }

    @Test
    void anErrorAnswersBodyIsNotShownByDefault() {
        schedule("quiet");
        JsonNode dead = awaitDead("quiet");
        assertThat(dead.path("lastError").asText()).isEqualTo("callback answered HTTP 500");
        assertThat(dead.path("history").get(0).path("error").asText()).isEqualTo("callback answered HTTP 500");
        JsonNode notice = awaitNotice("quiet");
        assertThat(notice.path("lastError").asText()).isEqualTo("the onDead target answered HTTP 500");
        assertThat(notice.path("lastStatus").asInt()).isEqualTo(500);
    }

    @Test
    void aTopicWithErrorBodiesShowsTheStartOfTheBody() {
        Answer on = admin.put("/v1/topics/" + topic, "{\"errorBodies\": true}");
        assertThat(on.status()).as(on.toString()).isEqualTo(200);
        assertThat(on.json().path("settings").path("errorBodies").asBoolean()).isTrue();
        schedule("told");
        assertThat(awaitDead("told").path("lastError").asText()).isEqualTo("callback answered HTTP 500: status 500");
        assertThat(awaitNotice("told").path("lastError").asText())
                .isEqualTo("the onDead target answered HTTP 500: status 500");
    }

    @Test
    void aBadErrorBodiesValueIsRefusedNamingTheFieldAndChangesNothing() {
        assertThat(admin.put("/v1/topics/" + topic, "{\"errorBodies\": true, \"maxAttempts\": 4}").status())
                .isEqualTo(200);
        for (String bad : List.of("\"true\"", "0", "{}")) {
            Answer refused = admin.put("/v1/topics/" + topic, "{\"errorBodies\": " + bad + ", \"maxAttempts\": 9}");
            assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.json().path("field").asText()).isEqualTo("errorBodies");
        }
        JsonNode kept = api.get("/v1/topics/" + topic).json().path("settings");
        assertThat(kept.path("errorBodies").asBoolean()).as("%s", kept).isTrue();
        assertThat(kept.path("maxAttempts").asInt()).isEqualTo(4);
        Answer reset = admin.put("/v1/topics/" + topic, "{\"errorBodies\": null}");
        assertThat(reset.json().path("settings").has("errorBodies")).as("%s", reset).isFalse();
    }

    private void schedule(String id) {
        Answer created = api.post("/v1/topics/" + topic + "/jobs", """
                {"id": "%s", "payload": {}, "maxAttempts": 1, "callback": {"url": "%s"}, "onDead": {"url": "%s"}}"""
                .formatted(id, RECEIVER.url("/internal/" + topic), RECEIVER.url("/notices/" + topic)));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private JsonNode awaitDead(String id) {
        Await.until(id + " dead", Duration.ofSeconds(20),
                () -> api.get("/v1/topics/" + topic + "/jobs/" + id).json().path("state").asText().equals("DEAD"));
        return api.get("/v1/topics/" + topic + "/jobs/" + id).json();
    }

    private JsonNode awaitNotice(String id) {
        String path = "/v1/admin/dead-letters/" + topic + "/" + id;
        Await.until("the notice of " + id + " recorded FAILED", Duration.ofSeconds(30),
                () -> admin.get(path).json() != null
                        && admin.get(path).json().path("notice").path("state").asText().equals("FAILED"));
        return admin.get(path).json().path("notice");
    }
}
