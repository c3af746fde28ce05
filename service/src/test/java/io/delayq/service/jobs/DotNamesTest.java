package io.delayq.service.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.core.testing.StoreFixtures;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DirectStore;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Names made only of dots ({@code .}, {@code ..}, {@code ...}) are steps of a URL path, not names: a browser or
 * {@code URI.resolve} folds {@code /dead-letters/t/../replay} into {@code /dead-letters/replay}, a bulk replay of
 * every topic. The API refuses them as topics and job ids; a dead letter an earlier version stored under one is
 * still found, and purged, through the filters.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class DotNamesTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    private static final List<String> DOTS = List.of(".", "..", "...");

    private static Api api(String token) {
        return TestApps.api(APP).as(token);
    }

    @Test
    void jobIdsMadeOnlyOfDotsAreRefusedAndNothingIsStored() {
        String topic = TestApps.topic();
        Api producer = api(TestApps.PRODUCER);
        for (String id : DOTS) {
            Answer refused = producer.post("/v1/topics/" + topic + "/jobs",
                    "{\"id\":\"" + id + "\",\"delayMs\":60000,\"payload\":{}}");
            assertProblem(refused, 422, "job id '" + id + "'");
        }
        Answer batch = producer.post("/v1/topics/" + topic + "/jobs/batch",
                "{\"jobs\":[{\"id\":\"..\",\"delayMs\":60000,\"payload\":{}},{\"id\":\"a..b\",\"delayMs\":60000,"
                        + "\"payload\":{}}]}");
        assertThat(batch.status()).as(batch.toString()).isEqualTo(200);
        assertThat(batch.json().at("/items/0/status").asInt()).isEqualTo(422);
        assertThat(batch.json().at("/items/0/error/detail").asText()).contains("only of dots");
        assertThat(batch.json().at("/items/1/status").asInt()).as("dots inside a name are fine").isEqualTo(201);
        assertThat(api(TestApps.ADMIN).get("/v1/topics/" + topic).json().path("scheduled").asLong())
                .as("only a..b was stored").isEqualTo(1);
    }

    @Test
    void topicsMadeOnlyOfDotsAreRefusedAndNothingIsStored() {
        Api admin = api(TestApps.ADMIN);
        // "." and ".." never reach the service as path segments (clients and the server fold them); "..." does
        assertProblem(admin.put("/v1/topics/...", "{\"paused\":true}"), 422, "topic '...'");
        assertProblem(admin.post("/v1/topics/.../jobs", "{\"id\":\"a\",\"delayMs\":60000,\"payload\":{}}"), 422,
                "topic '...'");
        assertProblem(admin.get("/v1/topics/.../jobs/a"), 422, "topic '...'");
        assertProblem(admin.get("/v1/topics/t/jobs/..."), 422, "job id '...'");
        assertProblem(admin.get("/v1/admin/dead-letters/t/..."), 422, "job id '...'");
        assertProblem(admin.post("/v1/admin/dead-letters/t/.../replay", "{}"), 422, "job id '...'");
        assertProblem(admin.delete("/v1/admin/dead-letters/t/..."), 422, "job id '...'");
        assertThat(io.delayq.service.topics.TopicPages.find(admin, "...")).isNull();
    }

    @Test
    void aLetterStoredUnderADotIdEarlierIsFoundAndPurgedThroughTheFilters() throws Exception {
        String topic = TestApps.topic();
        try (DirectStore direct = DirectStore.of(APP)) {
            StoreFixtures.killJob(direct.store(), topic, "..", 1);
            StoreFixtures.killJob(direct.store(), topic, "keep", 1);
        }
        Api admin = api(TestApps.ADMIN);
        String dotLetters = "/v1/admin/dead-letters?topic=" + topic + "&idPrefix=..";
        Await.until("the dot letter is archived", () -> admin.get(dotLetters).json().path("items").size() == 1);
        Await.until("the other letter is archived", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().path("items").size() == 2);
        assertThat(admin.get(dotLetters).json().at("/items/0/id").asText()).isEqualTo("..");

        String filter = "{\"topic\":\"" + topic + "\",\"idPrefix\":\"..\"}";
        assertThat(admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"dryRun\":true,\"filter\":" + filter
                + "}").json().path("matching").asLong()).isEqualTo(1);
        Answer purge = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"filter\":" + filter + "}");
        assertThat(purge.status()).as(purge.toString()).isEqualTo(202);
        String op = purge.json().path("id").asText();
        Await.until("the purge is done", () -> "done".equals(
                admin.get("/v1/admin/bulk-operations/" + op).json().path("state").asText()));
        JsonNode left = admin.get("/v1/admin/dead-letters?topic=" + topic).json().path("items");
        assertThat(left).hasSize(1);
        assertThat(left.get(0).path("id").asText()).isEqualTo("keep");
    }

    static void assertProblem(Answer answer, int status, String detailContains) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).contains(detailContains);
    }
}
