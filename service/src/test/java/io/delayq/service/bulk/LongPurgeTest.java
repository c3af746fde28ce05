package io.delayq.service.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.postgres.testing.TestPostgres;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DeadLetters;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bulk purge that takes long: the store and the archive are the test PostgreSQL, whose dead-letter rows of the topic the test holds locked
 * (SELECT … FOR UPDATE in an open transaction), so the purge waits for them as it would behind a slow archive. A purge
 * is one archive call and cannot stop half-way: its cancel is refused (409) and not audited, and while it runs it
 * keeps reporting, so that it is not shown as stalled (a running operation is stalled after 30 s without a report).
 * PostgreSQL only: the embedded MongoDB-protocol archive has no locks to hold.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class LongPurgeTest {
    /** PostgreSQL alone (postgres-alone.yml): the store on the test PostgreSQL, the archive following it there. */
    static final DropwizardAppExtension<DelayqConfiguration> APP = new DropwizardAppExtension<>(
            DelayqApplication.class, ResourceHelpers.resourceFilePath("postgres-alone.yml"),
            ConfigOverride.config("store.database.url", TestPostgres::sharedJdbcUrl),
            ConfigOverride.config("store.database.user", TestPostgres::user),
            ConfigOverride.config("store.database.password", TestPostgres::password));

    @Test
    void aRunningPurgeCannotBeCancelledAndKeepsReportingUntilItIsDone() throws Exception {
        Api admin = TestApps.api(APP).as(TestApps.ADMIN);
        DeadLetters letters = new DeadLetters(admin);
        String topic = TestApps.topic();
        letters.kill(topic, "a", "{}");
        letters.kill(topic, "b", "{}");

        String op;
        try (Connection lock = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password())) {
            lock.setAutoCommit(false);
            try (PreparedStatement rows = lock.prepareStatement(
                    "SELECT key FROM delayq_dead_letters WHERE topic = ? FOR UPDATE")) {
                rows.setString(1, topic);
                try (ResultSet locked = rows.executeQuery()) {
                    int n = 0;
                    while (locked.next()) {
                        n++;
                    }
                    assertThat(n).as("the topic's rows are held").isEqualTo(2);
                }
            }
            try {
                Answer started = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"filter\":{\"topic\":\""
                        + topic + "\"},\"expectedCount\":2}");
                assertThat(started.status()).as(started.toString()).isEqualTo(202);
                op = started.json().path("id").asText();

                Answer cancel = admin.post("/v1/admin/bulk-operations/" + op + "/cancel", "");
                assertThat(cancel.status()).as(cancel.toString()).isEqualTo(409);
                assertThat(cancel.detail()).contains("purge");
                JsonNode running = admin.get("/v1/admin/bulk-operations/" + op).json();
                assertThat(running.path("cancelRequested").asBoolean()).as("no cancel was recorded").isFalse();
                assertThat(running.path("cancellable").asBoolean(true)).as("a purge is not cancellable").isFalse();

                Instant created = Instant.parse(running.path("createdAt").asText());
                Await.until("the waiting purge reports again", java.time.Duration.ofSeconds(20), () ->
                        Instant.parse(admin.get("/v1/admin/bulk-operations/" + op).json().path("updatedAt").asText())
                                .isAfter(created.plusSeconds(5)));
                JsonNode reported = admin.get("/v1/admin/bulk-operations/" + op).json();
                assertThat(reported.path("state").asText()).as("still running, not stalled").isEqualTo("running");
                assertThat(reported.path("done").asLong()).as("nothing purged while the rows are held").isZero();
            } finally {
                lock.rollback();
            }
        }
        JsonNode done = letters.awaitFinished(op);
        assertThat(done.path("state").asText()).isEqualTo("done");
        assertThat(done.path("done").asLong()).isEqualTo(2);
        for (JsonNode entry : admin.get("/v1/admin/audit?limit=200").json().path("items")) {
            if (entry.path("detail").asText().contains(op)) {
                assertThat(entry.path("action").asText()).as("audited: " + entry).isNotEqualTo("bulk.cancel");
            }
        }
    }
}
