package io.delayq.service.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.service.support.Api.Answer;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dead letters made through the API as an application makes them: a pull job with one attempt, leased by a consumer
 * and nacked, then found in the archive (which the service's archiver fills from the store's outbox).
 */
public final class DeadLetters {
    private final Api admin;

    /** @param admin a client whose token has the producer, consumer and admin roles (test-config.yml's admin) */
    public DeadLetters(Api admin) {
        this.admin = admin;
    }

    /** Kills job {@code id} of {@code topic} with {@code payloadJson} and waits until the archive lists its letter. */
    public void kill(String topic, String id, String payloadJson) {
        Answer created = admin.post("/v1/topics/" + topic + "/jobs",
                "{\"id\":\"" + id + "\",\"payload\":" + payloadJson + ",\"maxAttempts\":1}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        Answer leased = admin.post("/v1/topics/" + topic + "/leases", "{\"max\":1,\"waitMs\":5000}");
        JsonNode lease = leased.json().path("leases").path(0);
        assertThat(lease.path("id").asText()).as(leased.toString()).isEqualTo(id);
        Answer nack = admin.post("/v1/topics/" + topic + "/jobs/" + id + "/nack",
                "{\"leaseToken\":\"" + lease.path("leaseToken").asText() + "\",\"error\":\"refused by the test\"}");
        assertThat(nack.status()).as(nack.toString()).isEqualTo(204);
        Await.until("the dead letter " + topic + "/" + id, () -> admin.get("/v1/admin/dead-letters/" + topic + "/" + id)
                .status() == 200);
    }

    /** The ids of the letters of {@code topic} now, newest first (at most 1000). */
    public List<String> ids(String topic) {
        JsonNode items = admin.get("/v1/admin/dead-letters?limit=1000&topic=" + topic).json().path("items");
        List<String> ids = new ArrayList<>();
        items.forEach(item -> ids.add(item.path("id").asText()));
        return ids;
    }

    /** Waits until the bulk operation {@code id} has finished, and returns it. */
    public JsonNode awaitFinished(String operation) {
        Await.until("bulk operation " + operation + " finishes", () -> !"running".equals(
                admin.get("/v1/admin/bulk-operations/" + operation).json().path("state").asText()));
        return admin.get("/v1/admin/bulk-operations/" + operation).json();
    }
}
