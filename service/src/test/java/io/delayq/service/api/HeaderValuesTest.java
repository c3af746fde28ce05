package io.delayq.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.testing.CallbackReceiver.Reply;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callback and {@code onDead} header values are the receivers' credentials: write-only. Every place that shows a job, a
 * topic or a dead letter shows the header names with the values masked ({@code ********}), to every role, admins
 * included; only the delivery path reads them. A PUT that sends a masked value back keeps the stored one (an edit
 * form round-trips); a mask with nothing stored under its name is a 422, and a new job or replay cannot carry one.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class HeaderValuesTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    static final String MASK = "********";
    static final List<String> SECRETS = List.of("topic-secret-1", "dead-secret-2", "job-secret-3");

    private Api admin;
    private String topic;

    @BeforeEach
    void setUp() {
        RECEIVER.answer(r -> r.path().startsWith("/fail") ? Reply.status(500) : Reply.ok());
        admin = TestApps.api(APP).as(TestApps.ADMIN);
        topic = TestApps.topic();
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    private String topicSettings() {
        return "{\"callback\":{\"url\":\"" + RECEIVER.url("/ok/" + topic) + "\",\"headers\":{\"X-Key\":\"topic-secret-1\"}},"
                + "\"onDead\":{\"url\":\"" + RECEIVER.url("/dead/" + topic) + "\",\"headers\":{\"X-Dead\":\"dead-secret-2\"}}}";
    }

    private String dyingJob(String id) {
        return "{\"id\":\"" + id + "\",\"payload\":{},\"maxAttempts\":1,\"callback\":{\"url\":\""
                + RECEIVER.url("/fail/" + topic) + "\",\"headers\":{\"X-Job\":\"job-secret-3\"}}}";
    }

    @Test
    void noReadShowsAHeaderValueToAnyRoleAndDeliveryStillSendsThem() {
        Answer put = admin.put("/v1/topics/" + topic, topicSettings());
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        assertMasked(put, "PUT topic");
        assertThat(put.json().at("/settings/callback/headers/X-Key").asText()).isEqualTo(MASK);
        assertThat(put.json().at("/settings/onDead/headers/X-Dead").asText()).isEqualTo(MASK);

        Answer created = admin.post("/v1/topics/" + topic + "/jobs", dyingJob("dies"));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertMasked(created, "POST job");
        assertThat(created.json().at("/callback/headers/X-Job").asText()).isEqualTo(MASK);
        Answer batch = admin.post("/v1/topics/" + topic + "/jobs/batch", "{\"jobs\":[" + dyingJob("batched")
                .replace("\"maxAttempts\":1", "\"maxAttempts\":1,\"delayMs\":600000") + "]}");
        assertMasked(batch, "POST batch");
        assertThat(batch.json().at("/items/0/job/callback/headers/X-Job").asText()).isEqualTo(MASK);
        Answer byDefault = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"by-default\",\"payload\":{}}");
        assertThat(byDefault.status()).isEqualTo(201);

        // the delivery path reads the values: the callback, the topic's default callback and the dead notice
        Received dead = RECEIVER.await(r -> r.path().equals("/fail/" + topic), 1, Duration.ofSeconds(20)).get(0);
        assertThat(dead.header("X-Job")).isEqualTo("job-secret-3");
        Received byTopic = RECEIVER.await(r -> r.path().equals("/ok/" + topic), 1, Duration.ofSeconds(20)).get(0);
        assertThat(byTopic.header("X-Key")).isEqualTo("topic-secret-1");
        Received notice = RECEIVER.await(r -> r.path().equals("/dead/" + topic), 1, Duration.ofSeconds(30)).get(0);
        assertThat(notice.header("X-Dead")).isEqualTo("dead-secret-2");
        Await.until("the dead letter is archived", () ->
                admin.get("/v1/admin/dead-letters/" + topic + "/dies").status() == 200);

        for (String token : List.of(TestApps.ADMIN, "viewer-token", TestApps.PRODUCER, TestApps.CONSUMER)) {
            Api reader = admin.as(token);
            for (String path : List.of("/v1/topics/" + topic, "/v1/topics", "/v1/topics/" + topic + "/jobs/dies",
                    "/v1/topics/" + topic + "/jobs/batched", "/v1/admin/dead-letters/" + topic + "/dies",
                    "/v1/admin/dead-letters?topic=" + topic, "/v1/admin/dead-letters/groups?topic=" + topic,
                    "/v1/admin/audit?limit=500", "/v1/admin/bulk-operations")) {
                Answer read = reader.get(path);
                assertThat(read.status()).as(token + " " + path + ": " + read).isIn(200, 403);
                assertMasked(read, token + " GET " + path);
            }
        }
        JsonNode letter = admin.get("/v1/admin/dead-letters/" + topic + "/dies").json();
        assertThat(letter.at("/job/callback/headers/X-Job").asText()).as("the name stays, the value is masked")
                .isEqualTo(MASK);
        assertThat(letter.at("/job/onDead/headers/X-Dead").asText()).isEqualTo(MASK);
        Answer replayed = admin.post("/v1/admin/dead-letters/" + topic + "/dies/replay", "{\"delayMs\":600000}");
        assertThat(replayed.status()).as(replayed.toString()).isEqualTo(201);
        assertMasked(replayed, "POST replay");
    }

    @Test
    void aPutThatSendsTheMaskBackKeepsTheStoredValue() {
        assertThat(admin.put("/v1/topics/" + topic, topicSettings()).status()).isEqualTo(200);
        JsonNode shown = admin.get("/v1/topics/" + topic).json().path("settings");

        // the edit form's round trip: the settings as shown, one field changed
        Answer roundTrip = admin.put("/v1/topics/" + topic, "{\"callback\":" + shown.path("callback") + ",\"onDead\":"
                + shown.path("onDead") + ",\"maxAttempts\":3}");
        assertThat(roundTrip.status()).as(roundTrip.toString()).isEqualTo(200);
        assertMasked(roundTrip, "PUT round trip");
        assertThat(roundTrip.json().at("/settings/maxAttempts").asInt()).isEqualTo(3);
        assertThat(admin.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"kept\",\"payload\":{}}").status())
                .isEqualTo(201);
        Received kept = RECEIVER.await(r -> r.path().equals("/ok/" + topic) && "kept".equals(r.id()), 1,
                Duration.ofSeconds(20)).get(0);
        assertThat(kept.header("X-Key")).as("the stored value was kept").isEqualTo("topic-secret-1");

        // a new value replaces it; a mask for a name with no stored value, or moving the credentials to another
        // origin, is refused and changes nothing
        String url = RECEIVER.url("/ok/" + topic);
        Answer unknown = admin.put("/v1/topics/" + topic, "{\"callback\":{\"url\":\"" + url
                + "\",\"headers\":{\"X-Key\":\"" + MASK + "\",\"X-Other\":\"" + MASK + "\"}},\"maxAttempts\":5}");
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(422);
        assertThat(unknown.detail()).contains("X-Other").contains(MASK);
        Answer elsewhere = admin.put("/v1/topics/" + topic, "{\"callback\":{\"url\":\"http://localhost:"
                + URI.create(url).getPort() + "/elsewhere\",\"headers\":{\"X-Key\":\"" + MASK + "\"}},"
                + "\"maxAttempts\":5}");
        assertThat(elsewhere.status()).as(elsewhere.toString()).isEqualTo(422);
        assertThat(elsewhere.detail()).contains("X-Key");
        JsonNode after = admin.get("/v1/topics/" + topic).json().path("settings");
        assertThat(after.path("maxAttempts").asInt()).as("nothing changed").isEqualTo(3);
        assertThat(after.at("/callback/headers").size()).isEqualTo(1);
        assertThat(after.at("/callback/url").asText()).isEqualTo(url);

        Answer replaced = admin.put("/v1/topics/" + topic, "{\"callback\":{\"url\":\"" + url
                + "\",\"headers\":{\"X-Key\":\"topic-secret-new\"}}}");
        assertThat(replaced.status()).isEqualTo(200);
        assertThat(admin.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"replaced\",\"payload\":{}}").status())
                .isEqualTo(201);
        assertThat(RECEIVER.await(r -> "replaced".equals(r.id()), 1, Duration.ofSeconds(20)).get(0).header("X-Key"))
                .isEqualTo("topic-secret-new");
    }

    @Test
    void aNewJobOrReplayCannotCarryTheMask() {
        for (String field : List.of("callback", "onDead")) {
            Answer refused = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"masked\",\"payload\":{},\""
                    + field + "\":{\"url\":\"" + RECEIVER.url("/ok") + "\",\"headers\":{\"X-Key\":\"" + MASK + "\"}}}");
            assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
            assertThat(refused.detail()).contains(field).contains("X-Key").contains(MASK);
        }
        assertThat(admin.get("/v1/topics/" + topic + "/jobs/masked").status()).as("nothing stored").isEqualTo(404);
    }

    private static void assertMasked(Answer answer, String what) {
        String body = answer.raw().body();
        for (String secret : SECRETS) {
            assertThat(body).as(what + " shows a header value").doesNotContain(secret);
        }
    }
}
