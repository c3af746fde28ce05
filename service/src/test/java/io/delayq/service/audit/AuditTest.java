package io.delayq.service.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DeadLetters;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What operators do is in the audit log, read back over the API from the archive: a job cancelled or rescheduled by
 * an operator (the dashboard offers both), and how a bulk operation ended, with its final count (its start records
 * only the dry run's).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class AuditTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    private Api admin;
    private String topic;

    @BeforeEach
    void setUp() {
        admin = TestApps.api(APP).as(TestApps.ADMIN);
        topic = TestApps.topic();
    }

    @Test
    void anOperatorsCancelAndRescheduleOfAJobAreAudited() {
        String jobs = "/v1/topics/" + topic + "/jobs";
        assertThat(admin.post(jobs, "{\"id\":\"j\",\"delayMs\":60000,\"payload\":{}}").status()).isEqualTo(201);
        Answer moved = admin.post(jobs + "/j/reschedule", "{\"delayMs\":120000}");
        assertThat(moved.status()).as(moved.toString()).isEqualTo(200);
        assertThat(admin.delete(jobs + "/j").status()).isEqualTo(204);

        JsonNode reschedule = awaitEntry("job.reschedule", topic + "/j");
        assertThat(reschedule.path("actor").asText()).isEqualTo("admin");
        assertThat(reschedule.path("count").asLong()).isEqualTo(1);
        assertThat(reschedule.path("detail").asText()).contains(moved.json().path("runAt").asText());
        JsonNode cancel = awaitEntry("job.cancel", topic + "/j");
        assertThat(cancel.path("actor").asText()).isEqualTo("admin");
        assertThat(cancel.path("count").asLong()).isEqualTo(1);

        // a producer's own cancels are the application's traffic, not an operator's action: not audited
        Api producer = admin.as(TestApps.PRODUCER);
        assertThat(producer.post(jobs, "{\"id\":\"app\",\"delayMs\":60000,\"payload\":{}}").status()).isEqualTo(201);
        assertThat(producer.delete(jobs + "/app").status()).isEqualTo(204);
        assertThat(entries(topic + "/app")).isEmpty();
    }

    @Test
    void aBulkOperationsEndIsAuditedWithItsFinalCount() {
        DeadLetters letters = new DeadLetters(admin);
        letters.kill(topic, "a", "{}");
        letters.kill(topic, "b", "{}");
        Answer started = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"filter\":{\"topic\":\""
                + topic + "\"},\"expectedCount\":2}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        String op = started.json().path("id").asText();
        assertThat(letters.awaitFinished(op).path("done").asLong()).isEqualTo(2);

        JsonNode end = awaitEntry("bulk.finish", "topic=" + topic);
        assertThat(end.path("actor").asText()).as("who started it").isEqualTo("admin");
        assertThat(end.path("count").asLong()).as("the final count").isEqualTo(2);
        assertThat(end.path("detail").asText()).contains(op).contains("done");
    }

    private JsonNode awaitEntry(String action, String target) {
        Await.until(action + " of " + target + " in the audit log", () -> entries(target).stream()
                .anyMatch(e -> action.equals(e.path("action").asText())));
        return entries(target).stream().filter(e -> action.equals(e.path("action").asText())).findFirst()
                .orElseThrow();
    }

    private List<JsonNode> entries(String target) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode entry : admin.get("/v1/admin/audit?limit=500").json().path("items")) {
            if (entry.path("target").asText().equals(target)) {
                found.add(entry);
            }
        }
        return found;
    }
}
