package io.delayq.service.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The producer and topic endpoints on the whole running service, against a real Redis. */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class ProducerApiTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    private Api api;
    private String topic;

    @BeforeEach
    void setUp() {
        api = TestApps.api(APP);
        topic = TestApps.topic();
    }

    private String jobs() {
        return "/v1/topics/" + topic + "/jobs";
    }

    @Test
    void schedulesAJobAndAnswersCreatedWithLocation() {
        Answer created = api.post(jobs(), "{\"id\":\"order-1\",\"delayMs\":60000,\"payload\":{\"orderId\":1,\"tags\":[\"a\"]}}");

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.header("Location")).endsWith(jobs() + "/order-1");
        JsonNode job = created.json();
        assertThat(job.path("id").asText()).isEqualTo("order-1");
        assertThat(job.path("topic").asText()).isEqualTo(topic);
        assertThat(job.path("state").asText()).isEqualTo("SCHEDULED");
        assertThat(job.path("payload").toString()).isEqualTo("{\"orderId\":1,\"tags\":[\"a\"]}");
        assertThat(job.path("delivery").asText()).isEqualTo("PULL");
        assertThat(Instant.parse(job.path("runAt").asText())).isAfter(Instant.now().plusSeconds(50));

        Answer read = api.get(jobs() + "/order-1");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().path("payload")).isEqualTo(job.path("payload"));
    }

    @Test
    void generatesAnIdWhenNoneIsGiven() {
        Answer created = api.post(jobs(), "{\"payload\":\"hello\"}");

        assertThat(created.status()).isEqualTo(201);
        String id = created.json().path("id").asText();
        assertThat(id).matches("[0-9a-f-]{36}");
        assertThat(api.get(jobs() + "/" + id).json().path("payload").asText()).isEqualTo("hello");
    }

    @Test
    void sameIdSameContentIsIdempotentAndOtherContentConflicts() {
        String body = "{\"id\":\"dup\",\"delayMs\":60000,\"payload\":{\"n\":1}}";
        assertThat(api.post(jobs(), body).status()).isEqualTo(201);

        Answer again = api.post(jobs(), body);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().path("id").asText()).isEqualTo("dup");

        Answer conflict = api.post(jobs(), "{\"id\":\"dup\",\"delayMs\":60000,\"payload\":{\"n\":2}}");
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.contentType()).startsWith("application/problem+json");
        assertThat(conflict.detail()).contains(topic + "/dup");
        assertThat(api.get(jobs() + "/dup").json().path("payload").path("n").asInt()).isEqualTo(1);
    }

    @Test
    void batchGivesPerItemResultsAndStoresOnlyTheValidOnes() {
        assertThat(api.post(jobs(), "{\"id\":\"existing\",\"delayMs\":60000,\"payload\":1}").status()).isEqualTo(201);

        Answer batch = api.post(jobs() + "/batch", """
                {"jobs": [
                  {"id": "b-1", "delayMs": 60000, "payload": {"k": 1}},
                  {"id": "bad id!", "payload": {}},
                  {"id": "existing", "delayMs": 60000, "payload": 1},
                  {"id": "existing", "delayMs": 60000, "payload": 2},
                  {"id": "b-5", "delayMs": -5, "payload": {}},
                  {"payload": [1, 2, 3]}
                ]}""");

        assertThat(batch.status()).as(batch.toString()).isEqualTo(200);
        JsonNode items = batch.json().path("items");
        List<Integer> statuses = new ArrayList<>();
        items.forEach(i -> statuses.add(i.path("status").asInt()));
        assertThat(statuses).containsExactly(201, 422, 200, 409, 422, 201);
        assertThat(batch.json().path("created").asInt()).isEqualTo(2);
        assertThat(batch.json().path("existing").asInt()).isEqualTo(1);
        assertThat(batch.json().path("failed").asInt()).isEqualTo(3);
        assertThat(items.get(1).path("error").path("detail").asText()).contains("bad id!");
        assertThat(items.get(4).path("error").path("detail").asText()).contains("delayMs");

        assertThat(api.get(jobs() + "/b-1").status()).isEqualTo(200);
        assertThat(api.get(jobs() + "/b-5").status()).isEqualTo(404);
        assertThat(api.get(jobs() + "/" + items.get(5).path("id").asText()).status()).isEqualTo(200);
        assertThat(api.get("/v1/topics/" + topic).json().path("scheduled").asLong()).isEqualTo(3);
    }

    @Test
    void batchOverTheLimitIsRefusedWhole() {
        var jobs = new ArrayList<Map<String, Object>>();
        for (int i = 0; i < 51; i++) {
            jobs.add(Map.of("id", "j" + i, "payload", i));
        }
        Answer answer = api.post(jobs() + "/batch", Api.json(Map.of("jobs", jobs)));

        assertThat(answer.status()).isEqualTo(422);
        assertThat(answer.detail()).contains("51").contains("50");
        assertThat(api.get(jobs() + "/j0").status()).isEqualTo(404);
    }

    @Test
    void cancelAnswers204ThenConflictAndUnknownIs404() {
        api.post(jobs(), "{\"id\":\"c\",\"delayMs\":60000,\"payload\":{}}");

        assertThat(api.delete(jobs() + "/c").status()).isEqualTo(204);
        assertThat(api.get(jobs() + "/c").json().path("state").asText()).isEqualTo("CANCELLED");
        Answer again = api.delete(jobs() + "/c");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.contentType()).startsWith("application/problem+json");
        Answer unknown = api.delete(jobs() + "/nope");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.detail()).contains(topic + "/nope");
    }

    @Test
    void reschedulesByDelayAndByRunAt() {
        api.post(jobs(), "{\"id\":\"r\",\"delayMs\":600000,\"payload\":{}}");

        Answer sooner = api.post(jobs() + "/r/reschedule", "{\"delayMs\":30000}");
        assertThat(sooner.status()).as(sooner.toString()).isEqualTo(200);
        Instant runAt = Instant.parse(sooner.json().path("runAt").asText());
        assertThat(runAt).isBefore(Instant.now().plusSeconds(40)).isAfter(Instant.now().plusSeconds(20));

        Answer absolute = api.post(jobs() + "/r/reschedule", "{\"runAt\":\"2099-01-01T00:00:00+01:00\"}");
        assertThat(absolute.status()).isEqualTo(422);
        assertThat(absolute.detail()).contains("maxDelay");

        String at = Instant.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString();
        Answer later = api.post(jobs() + "/r/reschedule", "{\"runAt\":\"" + at + "\"}");
        assertThat(later.status()).isEqualTo(200);
        assertThat(Instant.parse(later.json().path("runAt").asText())).isEqualTo(Instant.parse(at));

        assertThat(api.post(jobs() + "/r/reschedule", "{}").status()).isEqualTo(422);
        assertThat(api.post(jobs() + "/r/reschedule", "{\"delayMs\":-1}").status()).isEqualTo(422);
        assertThat(api.get(jobs() + "/r").json().path("runAt").asText()).as("a refused reschedule changes nothing")
                .isEqualTo(later.json().path("runAt").asText());
        assertThat(api.post(jobs() + "/gone/reschedule", "{\"delayMs\":1}").status()).isEqualTo(404);
    }

    @Test
    void topicShowsStatsAndSettingsAndPutMergesFields() {
        api.post(jobs(), "{\"id\":\"s1\",\"delayMs\":60000,\"payload\":{}}");
        api.post(jobs(), "{\"id\":\"s2\",\"delayMs\":120000,\"payload\":{}}");

        Answer view = api.get("/v1/topics/" + topic);
        assertThat(view.status()).isEqualTo(200);
        assertThat(view.json().path("scheduled").asLong()).isEqualTo(2);
        assertThat(view.json().path("nextRunAt").asText()).isNotEmpty();
        assertThat(view.json().path("settings").path("paused").asBoolean()).isFalse();

        Api admin = api.as(TestApps.ADMIN);
        Answer put = admin.put("/v1/topics/" + topic, """
                {"callback": {"url": "http://127.0.0.1:9/hook", "headers": {"X-Key": "k"}},
                 "maxAttempts": 3, "timeout": "5s", "paused": true,
                 "backoff": {"type": "schedule", "delays": ["1s", "2s"]}}""");
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        JsonNode settings = put.json().path("settings");
        assertThat(settings.path("callback").path("url").asText()).isEqualTo("http://127.0.0.1:9/hook");
        assertThat(settings.path("maxAttempts").asInt()).isEqualTo(3);
        assertThat(settings.path("paused").asBoolean()).isTrue();

        Answer resumed = admin.put("/v1/topics/" + topic, "{\"paused\": false, \"maxAttempts\": null}");
        JsonNode after = resumed.json().path("settings");
        assertThat(after.path("paused").asBoolean()).isFalse();
        assertThat(after.has("maxAttempts")).isFalse();
        assertThat(after.path("callback").path("url").asText()).isEqualTo("http://127.0.0.1:9/hook");
        assertThat(after.path("backoff").path("type").asText()).isEqualTo("schedule");

        // A job scheduled after the topic got a default callback is pushed, with the topic's attempts.
        admin.put("/v1/topics/" + topic, "{\"paused\": true, \"maxAttempts\": 4}");
        Answer pushed = api.post(jobs(), "{\"id\":\"s3\",\"delayMs\":60000,\"payload\":{}}");
        assertThat(pushed.json().path("delivery").asText()).isEqualTo("PUSH");
        assertThat(pushed.json().path("maxAttempts").asInt()).isEqualTo(4);

        Answer list = api.get("/v1/topics");
        assertThat(list.status()).isEqualTo(200);
        assertThat(io.delayq.service.topics.TopicPages.find(api, topic)).as("listed").isNotNull();
    }

    @Test
    void putRefusesBadSettingsAndKeepsTheOldOnes() {
        Api admin = api.as(TestApps.ADMIN);
        admin.put("/v1/topics/" + topic, "{\"maxAttempts\": 5}");

        Answer bad = admin.put("/v1/topics/" + topic, "{\"maxAttempts\": 0, \"paused\": true}");
        assertThat(bad.status()).isEqualTo(422);
        assertThat(bad.detail()).contains("maxAttempts");
        Answer unknown = admin.put("/v1/topics/" + topic, "{\"pause\": true}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.detail()).contains("pause");

        JsonNode settings = api.get("/v1/topics/" + topic).json().path("settings");
        assertThat(settings.path("maxAttempts").asInt()).isEqualTo(5);
        assertThat(settings.path("paused").asBoolean()).isFalse();
    }
}
