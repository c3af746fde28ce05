package io.delayq.service.deadletters;

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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.service.support.TestApps.ADMIN;
import static io.delayq.service.support.TestApps.CONSUMER;
import static io.delayq.service.support.TestApps.PRODUCER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operators' API over real HTTP, on the test Redis and the embedded archive: failure groups and payload filters,
 * a bulk replay tracked to done whose jobs reach a real receiver, the audit log, topic history and forecast, the
 * read-only viewer role, and bad input refused with problem+json.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class OperatorApiTest {
    private static final String VIEWER = "viewer-token";
    private static final int MONGO_PORT = freePort();
    /** Topics whose callbacks answer 500; the others get 200. */
    private static final Set<String> FAILING = ConcurrentHashMap.newKeySet();
    private static final CallbackReceiver RECEIVER = receiver();
    private static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("archive.type", "mongo"),
            ConfigOverride.config("archive.embedded.port", String.valueOf(MONGO_PORT)),
            ConfigOverride.config("archive.embedded.persistent", "false"));

    private static CallbackReceiver receiver() {
        CallbackReceiver receiver = new CallbackReceiver();
        receiver.answer(r -> FAILING.contains(r.topic()) ? Reply.status(500) : Reply.ok());
        return receiver;
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    private static Api api(String token) {
        return new Api("http://127.0.0.1:" + APP.getLocalPort(), token);
    }

    private static void scheduleDying(String topic, String id, int order) {
        String job = "{\"id\":\"" + id + "\",\"payload\":{\"orderId\":" + order + "},\"maxAttempts\":1,"
                + "\"callback\":{\"url\":\"" + RECEIVER.url("/hook") + "\"}}";
        assertThat(api(PRODUCER).post("/v1/topics/" + topic + "/jobs", job).status()).isEqualTo(201);
    }

    @Test
    void aFailureGroupIsFoundByPayloadAndReplayedByATrackedBulkOperation() {
        String topic = newTopic();
        Api admin = api(ADMIN);
        FAILING.add(topic);
        for (int i = 0; i < 5; i++) {
            scheduleDying(topic, "order-" + i, 100 + i);
        }
        Await.until("five dead letters", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().get("items").size() == 5);

        JsonNode groups = admin.get("/v1/admin/dead-letters/groups?topic=" + topic).json().get("items");
        assertThat(groups).hasSize(1);
        JsonNode group = groups.get(0);
        assertThat(group.get("count").asInt()).isEqualTo(5);
        assertThat(group.get("signature").get("kind").asText()).isEqualTo("HTTP 500");
        String groupId = group.get("signature").get("id").asText();

        JsonNode found = admin.get("/v1/admin/dead-letters?topic=" + topic + "&payload.orderId=103").json();
        assertThat(found.get("items")).hasSize(1);
        assertThat(found.get("items").get(0).get("id").asText()).isEqualTo("order-3");

        String filter = "{\"topic\":\"" + topic + "\",\"group\":\"" + groupId + "\"}";
        Answer dry = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"replay\",\"dryRun\":true,\"filter\":"
                + filter + "}");
        assertThat(dry.status()).isEqualTo(200);
        assertThat(dry.json().get("matching").asInt()).isEqualTo(5);

        FAILING.remove(topic);
        Answer started = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"replay\",\"filter\":" + filter + "}");
        assertThat(started.status()).isEqualTo(202);
        String op = started.json().get("id").asText();
        assertThat(started.header("Location")).endsWith("/v1/admin/bulk-operations/" + op);
        Await.until("the operation is done", () -> "done".equals(
                api(VIEWER).get("/v1/admin/bulk-operations/" + op).json().get("state").asText()));
        JsonNode done = admin.get("/v1/admin/bulk-operations/" + op).json();
        assertThat(done.get("total").asInt()).isEqualTo(5);
        assertThat(done.get("done").asInt()).isEqualTo(5);
        assertThat(done.get("startedBy").asText()).isEqualTo("admin");
        Await.until("the replayed jobs are delivered", () -> RECEIVER.received().stream()
                .filter(r -> topic.equals(r.topic()) && r.id().contains(":r")).count() == 5);

        JsonNode audit = api(VIEWER).get("/v1/admin/audit?limit=50").json().get("items");
        assertThat(audit.findValuesAsText("action")).contains("bulk.start");
        assertThat(audit.findValuesAsText("target")).anyMatch(t -> t.contains("group=" + groupId));
    }

    @Test
    void aBulkPurgeRemovesExactlyTheFilteredLetters() {
        String topic = newTopic();
        Api admin = api(ADMIN);
        FAILING.add(topic);
        for (int i = 0; i < 3; i++) {
            scheduleDying(topic, "purge-" + i, 200 + i);
        }
        scheduleDying(topic, "keep-0", 300);
        Await.until("four dead letters", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().get("items").size() == 4);

        String filter = "{\"topic\":\"" + topic + "\",\"idPrefix\":\"purge-\"}";
        assertThat(admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"dryRun\":true,\"filter\":"
                + filter + "}").json().get("matching").asInt()).isEqualTo(3);
        Answer started = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"filter\":" + filter + "}");
        assertThat(started.status()).isEqualTo(202);
        String op = started.json().get("id").asText();
        Await.until("the purge is done", () -> "done".equals(
                admin.get("/v1/admin/bulk-operations/" + op).json().get("state").asText()));
        assertThat(admin.get("/v1/admin/bulk-operations/" + op).json().get("done").asInt()).isEqualTo(3);
        JsonNode left = admin.get("/v1/admin/dead-letters?topic=" + topic).json().get("items");
        assertThat(left).hasSize(1);
        assertThat(left.get(0).get("id").asText()).isEqualTo("keep-0");
    }

    @Test
    void historyCountsDeadLettersByCause() {
        String topic = newTopic();
        String jobs = "/v1/topics/" + topic + "/jobs";
        String expiresAt = java.time.Instant.now().plusSeconds(60).toString();
        assertThat(api(PRODUCER).post(jobs, "{\"id\":\"late\",\"payload\":{},\"expiresAt\":\"" + expiresAt
                + "\"}").status()).isEqualTo(201);
        assertThat(api(PRODUCER).post(jobs, "{\"id\":\"refused\",\"payload\":{}}").status()).isEqualTo(201);
        JsonNode leases = api(CONSUMER).post("/v1/topics/" + topic + "/leases", "{\"max\":2,\"waitMs\":5000}")
                .json().get("leases");
        assertThat(leases).hasSize(2);
        for (JsonNode lease : leases) {
            String id = lease.get("id").asText();
            // "late": put back after its expiry, so it is dead of it; "refused": the consumer says don't retry
            String body = id.equals("late")
                    ? "{\"leaseToken\":\"" + lease.get("leaseToken").asText() + "\",\"delayMs\":120000}"
                    : "{\"leaseToken\":\"" + lease.get("leaseToken").asText() + "\",\"noRetry\":true}";
            assertThat(api(CONSUMER).post(jobs + "/" + id + "/nack", body).status()).as(id).isEqualTo(204);
        }
        JsonNode late = api(ADMIN).get(jobs + "/late").json();
        assertThat(late.get("state").asText()).isEqualTo("DEAD");
        assertThat(late.get("cause").asText()).isEqualTo("EXPIRED");

        Await.until("the history counts both dead letters by cause", () -> {
            long dead = 0;
            long expired = 0;
            long noRetry = 0;
            for (JsonNode m : api(VIEWER).get("/v1/topics/" + topic + "/history?minutes=5").json().get("minutes")) {
                dead += m.get("dead").asLong();
                expired += m.get("expired").asLong();
                noRetry += m.get("noRetry").asLong();
            }
            return dead == 2 && expired == 1 && noRetry == 1;
        });
    }

    @Test
    void historyCountsDeliveriesAndTheForecastCountsWhatIsDue() {
        String topic = newTopic();
        for (int i = 0; i < 3; i++) {
            String job = "{\"id\":\"h" + i + "\",\"payload\":{},\"callback\":{\"url\":\"" + RECEIVER.url("/hook")
                    + "\"}}";
            assertThat(api(PRODUCER).post("/v1/topics/" + topic + "/jobs", job).status()).isEqualTo(201);
        }
        String later = "{\"id\":\"later\",\"payload\":{},\"delayMs\":600000,\"callback\":{\"url\":\""
                + RECEIVER.url("/hook") + "\"}}";
        assertThat(api(PRODUCER).post("/v1/topics/" + topic + "/jobs", later).status()).isEqualTo(201);

        Await.until("the history shows the deliveries", () -> {
            JsonNode minutes = api(VIEWER).get("/v1/topics/" + topic + "/history?minutes=5").json().get("minutes");
            long delivered = 0;
            long enqueued = 0;
            for (JsonNode m : minutes) {
                delivered += m.get("delivered").asLong();
                enqueued += m.get("enqueued").asLong();
            }
            return delivered == 3 && enqueued == 4;
        });
        JsonNode minutes = api(VIEWER).get("/v1/topics/" + topic + "/history?minutes=5").json().get("minutes");
        assertThat(minutes).hasSize(5);

        JsonNode forecast = api(VIEWER).get("/v1/topics/" + topic + "/forecast?minutes=15").json();
        assertThat(forecast.get("counts")).hasSize(15);
        long due = 0;
        for (int i = 0; i < 15; i++) {
            due += forecast.get("counts").get(i).asLong();
            if (i < 9) {
                assertThat(forecast.get("counts").get(i).asLong()).as("minute %d", i).isZero();
            }
        }
        assertThat(due).isEqualTo(1);
        assertThat(api(VIEWER).get("/v1/topics/" + topic + "/leases").status()).isEqualTo(200);
    }

    @Test
    void aViewerReadsEverythingAndChangesNothing() {
        String topic = newTopic();
        Api viewer = api(VIEWER);
        JsonNode me = viewer.get("/v1/me").json();
        assertThat(me.get("name").asText()).isEqualTo("viewer");
        assertThat(me.get("roles").get(0).asText()).isEqualTo("viewer");
        assertThat(viewer.get("/v1/topics").status()).isEqualTo(200);
        assertThat(viewer.get("/v1/admin/dead-letters").status()).isEqualTo(200);
        assertThat(viewer.get("/v1/admin/bulk-operations").status()).isEqualTo(200);

        assertThat(viewer.put("/v1/topics/" + topic, "{\"paused\":true}").status()).isEqualTo(403);
        assertThat(viewer.post("/v1/topics/" + topic + "/jobs", "{\"payload\":{}}").status()).isEqualTo(403);
        assertThat(viewer.post("/v1/admin/bulk-operations", "{\"kind\":\"replay\",\"dryRun\":true}").status())
                .isEqualTo(403);
        assertThat(viewer.post("/v1/admin/dead-letters/purge", "{\"topic\":\"" + topic + "\"}").status())
                .isEqualTo(403);
        assertThat(api(ADMIN).get("/v1/topics/" + topic).json().get("settings").get("paused").asBoolean()).isFalse();
    }

    @Test
    void badInputIsRefusedWithAProblemAndChangesNothing() {
        Api admin = api(ADMIN);
        assertProblem(admin.get("/v1/admin/dead-letters/groups?limit=0"), 422, "limit");
        assertProblem(admin.get("/v1/admin/dead-letters?sattus=500"), 422, "unknown query parameter");
        assertProblem(admin.get("/v1/admin/dead-letters?payload.a..b=1"), 422, "payload field");
        assertProblem(admin.get("/v1/admin/dead-letters?group=nothex"), 422, "group");
        assertProblem(admin.get("/v1/admin/dead-letters?status=999"), 422, "status");
        assertProblem(admin.post("/v1/admin/bulk-operations", "{\"kind\":\"nope\"}"), 422, "kind");
        assertProblem(admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\"}"), 422, "at least one filter");
        assertProblem(admin.get("/v1/admin/bulk-operations/no-such-operation"), 404, "no bulk operation");
        assertProblem(admin.get("/v1/topics/t/history?minutes=0"), 422, "minutes");
        assertProblem(admin.get("/v1/topics/t/forecast?minutes=99999"), 422, "minutes");
        assertProblem(admin.get("/v1/admin/audit?limit=x"), 400, "limit");
        assertThat(admin.get("/v1/admin/bulk-operations").json().get("items").findValuesAsText("kind"))
                .doesNotContain("purge");
    }

    private static void assertProblem(Answer answer, int status, String detailContains) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).containsIgnoringCase(detailContains);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
