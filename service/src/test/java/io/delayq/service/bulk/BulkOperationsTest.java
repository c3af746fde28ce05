package io.delayq.service.bulk;

import com.fasterxml.jackson.databind.JsonNode;
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
 * Bulk operations and the filters they share with the list, on the whole service and its store: a filter means one
 * thing wherever it is read, and what an operator confirmed is what is done. Every refusal is checked against the
 * archive: nothing was replayed or purged.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class BulkOperationsTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    private Api admin;
    private DeadLetters letters;
    private String topic;

    @BeforeEach
    void setUp() {
        admin = TestApps.api(APP).as(TestApps.ADMIN);
        letters = new DeadLetters(admin);
        topic = TestApps.topic();
    }

    private Answer bulk(String kind, boolean dryRun, String filter) {
        return admin.post("/v1/admin/bulk-operations", "{\"kind\":\"" + kind + "\",\"dryRun\":" + dryRun
                + ",\"filter\":" + filter + "}");
    }

    /**
     * A payload value without its field used to be dropped silently: a purge meant for one letter took the whole topic
     * while the dashboard's confirmation still showed the payload filter. Both halves go together, everywhere a filter
     * is read, and a half is a 400 naming both.
     */
    @Test
    void aPayloadValueWithoutItsFieldIsRefusedEverywhereAndNothingIsPurged() {
        for (int i = 1; i <= 3; i++) {
            letters.kill(topic, "order-" + i, "{\"orderId\":" + i + "}");
        }
        List<String> halves = List.of(
                "{\"topic\":\"" + topic + "\",\"payloadValue\":\"2\"}",
                "{\"topic\":\"" + topic + "\",\"payloadField\":\"orderId\"}",
                "{\"topic\":\"" + topic + "\",\"payloadField\":\"\",\"payloadValue\":\"2\"}",
                "{\"topic\":\"" + topic + "\",\"payloadField\":\"  \",\"payloadValue\":\"2\"}");
        for (String filter : halves) {
            for (String kind : List.of("purge", "replay")) {
                assertBothFieldsNamed(bulk(kind, true, filter), kind + " dry run " + filter);
                assertBothFieldsNamed(bulk(kind, false, filter), kind + " " + filter);
            }
        }
        for (String query : List.of("payloadValue=2", "payloadField=orderId", "payload.=2")) {
            assertBothFieldsNamed(admin.get("/v1/admin/dead-letters?topic=" + topic + "&" + query), "list " + query);
            assertBothFieldsNamed(admin.get("/v1/admin/dead-letters/groups?topic=" + topic + "&" + query),
                    "groups " + query);
        }
        assertThat(letters.ids(topic)).as("nothing was purged").hasSize(3);
        for (JsonNode letter : admin.get("/v1/admin/dead-letters?topic=" + topic).json().path("items")) {
            assertThat(letter.path("replayCount").asInt()).as("nothing was replayed").isZero();
        }
        JsonNode match = bulk("purge", true, "{\"topic\":\"" + topic + "\",\"payloadField\":\"orderId\","
                + "\"payloadValue\":\"2\"}").json();
        assertThat(match.path("matching").asLong()).as("both halves narrow as before").isEqualTo(1);
    }

    /**
     * {@code replayed: true} used to mean "replayed ones" in the dry run and the list but "never replayed ones" in the
     * run: the operator confirmed one set and another was replayed. Now it means the replayed ones everywhere, and a
     * replay without it takes the never-replayed ones and records that in its filter.
     */
    @Test
    void replayedMeansTheSameInTheDryRunTheRunTheListAndThePurge() {
        letters.kill(topic, "old", "{}");
        letters.kill(topic, "fresh", "{}");
        Answer replayedOnce = admin.post("/v1/admin/dead-letters/" + topic + "/old/replay", "{}");
        assertThat(replayedOnce.status()).as(replayedOnce.toString()).isEqualTo(201);

        String onlyReplayed = "{\"topic\":\"" + topic + "\",\"replayed\":true}";
        assertThat(ids(admin.get("/v1/admin/dead-letters?replayed=true&topic=" + topic))).containsExactly("old");
        assertThat(bulk("purge", true, onlyReplayed).json().path("matching").asLong()).isEqualTo(1);
        assertThat(bulk("replay", true, onlyReplayed).json().path("matching").asLong()).isEqualTo(1);
        Answer started = bulk("replay", false, onlyReplayed);
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        assertThat(started.json().path("total").asLong()).isEqualTo(1);
        assertThat(started.json().path("filter").asText()).contains("replayed=true");
        JsonNode done = letters.awaitFinished(started.json().path("id").asText());
        assertThat(done.path("state").asText()).isEqualTo("done");
        assertThat(done.path("done").asLong()).isEqualTo(1);
        assertThat(replayCount(topic, "fresh")).as("the never-replayed letter was not taken").isZero();

        // left out, a replay takes the never-replayed letters, and its recorded filter says so
        String whole = "{\"topic\":\"" + topic + "\"}";
        assertThat(bulk("replay", true, whole).json().path("matching").asLong()).isEqualTo(1);
        Answer rest = bulk("replay", false, whole);
        assertThat(rest.json().path("filter").asText()).as(rest.toString()).contains("replayed=false");
        assertThat(letters.awaitFinished(rest.json().path("id").asText()).path("done").asLong()).isEqualTo(1);
        assertThat(replayCount(topic, "fresh")).isEqualTo(1);
        assertThat(ids(admin.get("/v1/admin/dead-letters?" + "replayed=false&topic=" + topic))).isEmpty();
    }

    /** The older replay endpoint reads {@code replayed} with the same meaning, instead of ignoring it. */
    @Test
    void theReplayEndpointReadsReplayedAsTheFiltersDo() {
        letters.kill(topic, "old", "{}");
        letters.kill(topic, "fresh", "{}");
        assertThat(admin.post("/v1/admin/dead-letters/" + topic + "/old/replay", "{}").status()).isEqualTo(201);

        Answer contradiction = admin.post("/v1/admin/dead-letters/replay", "{\"topic\":\"" + topic + "\","
                + "\"replayed\":true,\"includeReplayed\":false}");
        assertThat(contradiction.status()).as(contradiction.toString()).isEqualTo(422);
        assertThat(contradiction.detail()).contains("replayed").contains("includeReplayed");
        assertThat(replayCount(topic, "fresh")).isZero();

        Answer onlyReplayed = admin.post("/v1/admin/dead-letters/replay", "{\"topic\":\"" + topic + "\","
                + "\"replayed\":true}");
        assertThat(onlyReplayed.status()).as(onlyReplayed.toString()).isEqualTo(200);
        JsonNode outcome = onlyReplayed.json();
        assertThat(outcome.path("replayed").asInt() + outcome.path("duplicates").asInt()).as(outcome.toString())
                .isEqualTo(1);
        assertThat(replayCount(topic, "fresh")).as("the never-replayed letter was not taken").isZero();
    }

    /**
     * {@code from=20260101} used to be read as epoch milliseconds (1970) and widen a purge to everything; times are
     * RFC 3339 only, everywhere a filter is read, and anything else is a 422 naming the field.
     */
    @Test
    void timesAreRfc3339OnlyAndDigitsAreRefusedNotReadAsEpochMilliseconds() {
        letters.kill(topic, "a", "{}");
        for (String bad : List.of("20260101", "1700000000000", "0", "2026-01-01", "yesterday")) {
            assertTimeRefused(admin.get("/v1/admin/dead-letters?topic=" + topic + "&from=" + bad), "from", bad);
            assertTimeRefused(admin.get("/v1/admin/dead-letters/groups?topic=" + topic + "&to=" + bad), "to", bad);
            String filter = "{\"topic\":\"" + topic + "\",\"from\":\"" + bad + "\"}";
            assertTimeRefused(bulk("purge", true, filter), "from", bad);
            assertTimeRefused(bulk("purge", false, filter), "from", bad);
            assertTimeRefused(bulk("replay", false, filter), "from", bad);
            assertTimeRefused(admin.post("/v1/admin/dead-letters/purge", filter), "from", bad);
            assertTimeRefused(admin.post("/v1/admin/dead-letters/replay", filter), "from", bad);
        }
        assertThat(letters.ids(topic)).as("nothing was purged").containsExactly("a");
        assertThat(replayCount(topic, "a")).as("nothing was replayed").isZero();

        assertThat(ids(admin.get("/v1/admin/dead-letters?topic=" + topic + "&from=2000-01-01T00:00:00%2B01:00"
                + "&to=2999-12-31T23:59:59.999Z"))).as("RFC 3339, with an offset or Z").containsExactly("a");
    }

    private static void assertTimeRefused(Answer answer, String field, String value) {
        assertThat(answer.status()).as(field + "=" + value + ": " + answer).isEqualTo(422);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).startsWith(field + " '" + value + "'").contains("RFC 3339");
    }

    /**
     * Letters that die after an operator confirmed "purge 2 letters" used to be purged too. With
     * {@code expectedCount} (the dashboard sends its dry run's count), more matching letters are a 409 and nothing is
     * done; fewer are fine (someone else replayed or purged some meanwhile).
     */
    @Test
    void aBulkOperationTakesNoMoreLettersThanTheOperatorConfirmed() {
        letters.kill(topic, "a", "{}");
        letters.kill(topic, "b", "{}");
        String filter = "{\"topic\":\"" + topic + "\"}";
        assertThat(bulk("purge", true, filter).json().path("matching").asLong()).isEqualTo(2);
        letters.kill(topic, "late", "{}");

        for (String kind : List.of("purge", "replay")) {
            Answer refused = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"" + kind + "\",\"filter\":"
                    + filter + ",\"expectedCount\":2}");
            assertThat(refused.status()).as(kind + ": " + refused).isEqualTo(409);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.detail()).as(kind).contains("3").contains("expectedCount").contains("2");
        }
        Answer direct = admin.post("/v1/admin/dead-letters/purge", "{\"topic\":\"" + topic + "\",\"expectedCount\":2}");
        assertThat(direct.status()).as(direct.toString()).isEqualTo(409);
        for (String bad : List.of("-1", "\"2\"", "1.5")) {
            Answer refused = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"filter\":" + filter
                    + ",\"expectedCount\":" + bad + "}");
            assertThat(refused.status()).as(bad + ": " + refused).isIn(400, 422);
            assertThat(refused.toString()).as(bad).contains("expectedCount");
        }
        assertThat(letters.ids(topic)).as("nothing was purged").hasSize(3);
        for (String id : List.of("a", "b", "late")) {
            assertThat(replayCount(topic, id)).as("nothing was replayed").isZero();
        }
        for (JsonNode op : admin.get("/v1/admin/bulk-operations?limit=200").json().path("items")) {
            assertThat(op.path("filter").asText()).as("no operation was started").doesNotContain(topic);
        }

        Answer confirmed = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"purge\",\"filter\":" + filter
                + ",\"expectedCount\":3}");
        assertThat(confirmed.status()).as(confirmed.toString()).isEqualTo(202);
        assertThat(letters.awaitFinished(confirmed.json().path("id").asText()).path("done").asLong()).isEqualTo(3);
        letters.kill(topic, "after", "{}");
        assertThat(admin.post("/v1/admin/dead-letters/purge", "{\"topic\":\"" + topic + "\",\"expectedCount\":5}")
                .json().path("purged").asLong()).as("fewer than confirmed is fine").isEqualTo(1);
    }

    /** A cancel is accepted only where it can stop something: a finished operation answers 409, not "cancelling". */
    @Test
    void aFinishedOperationCannotBeCancelled() {
        letters.kill(topic, "a", "{}");
        Answer started = admin.post("/v1/admin/bulk-operations", "{\"kind\":\"replay\",\"filter\":{\"topic\":\""
                + topic + "\"},\"expectedCount\":1}");
        String op = started.json().path("id").asText();
        assertThat(letters.awaitFinished(op).path("state").asText()).isEqualTo("done");

        Answer cancel = admin.post("/v1/admin/bulk-operations/" + op + "/cancel", "");
        assertThat(cancel.status()).as(cancel.toString()).isEqualTo(409);
        assertThat(cancel.detail()).contains("done");
        JsonNode after = admin.get("/v1/admin/bulk-operations/" + op).json();
        assertThat(after.path("cancelRequested").asBoolean()).isFalse();
        assertThat(after.path("cancellable").asBoolean(true)).isFalse();
        for (JsonNode entry : admin.get("/v1/admin/audit?limit=200").json().path("items")) {
            if (entry.path("detail").asText().contains(op)) {
                assertThat(entry.path("action").asText()).as("audited: " + entry).isNotEqualTo("bulk.cancel");
            }
        }
        assertThat(admin.post("/v1/admin/bulk-operations/0000-no-such/cancel", "").status()).isEqualTo(404);
    }

    private int replayCount(String t, String id) {
        return admin.get("/v1/admin/dead-letters/" + t + "/" + id).json().path("replayCount").asInt();
    }

    private static List<String> ids(Answer page) {
        List<String> ids = new ArrayList<>();
        page.json().path("items").forEach(item -> ids.add(item.path("id").asText()));
        return ids;
    }

    private static void assertBothFieldsNamed(Answer answer, String what) {
        assertThat(answer.status()).as(what + ": " + answer).isEqualTo(400);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).as(what).contains("payloadField").contains("payloadValue");
        assertThat(answer.json().path("fields").toString()).as(what)
                .isEqualTo("[\"payloadField\",\"payloadValue\"]");
    }
}
