package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Reply;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-minute topic history ({@code GET /v1/topics/{topic}/history}) counts the confirmations that come through the
 * consumer endpoints, as it counts the push lane's outcomes: an ack is {@code delivered}, a nack (or a release that
 * uses the attempt) is {@code failed}, and {@code dead} too when it ends the job, counted once; a free release is
 * neither. A confirmation the store refuses (a stale lease token) counts nothing. A pull lease counts its lateness.
 * Runs on both stores (e2e-on-postgres).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class PullHistoryTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    /** Answers 202 with {@code Delayq-Async-Ack: true}: the receiver confirms through the ack/nack endpoints. */
    static final CallbackReceiver RECEIVER = new CallbackReceiver();

    private Api producer;
    private Api consumer;
    private String topic;

    @BeforeAll
    static void confirmLater() {
        RECEIVER.answer(r -> new Reply(202, 0, Map.of("Delayq-Async-Ack", "true")));
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        producer = TestApps.api(APP);
        consumer = producer.as(TestApps.CONSUMER);
        topic = TestApps.topic();
    }

    @Test
    void pullAcksNacksAndReleasesCountInTheHistoryAndRefusedConfirmationsDoNot() {
        schedule("ok-1", 3, "");
        String ok1 = lease("ok-1");
        assertThat(confirm("ok-1", "ack", ok1, "").status()).isEqualTo(204);
        schedule("ok-2", 3, "");
        String ok2 = lease("ok-2");
        assertThat(confirm("ok-2", "ack", ok2, "").status()).isEqualTo(204);

        schedule("retry", 3, "");
        assertThat(confirm("retry", "nack", lease("retry"), ", \"delayMs\": 600000").status()).isEqualTo(204);
        schedule("refused", 3, "");
        assertThat(confirm("refused", "nack", lease("refused"), ", \"noRetry\": true").status()).isEqualTo(204);
        schedule("last", 1, "");
        assertThat(confirm("last", "nack", lease("last"), "").status()).isEqualTo(204);
        // put back after its expiry: dead of it, counted once (as EXPIRED), and the attempt failed
        schedule("late", 3, ", \"expiresAt\": \"" + Instant.now().plusSeconds(60) + "\"");
        assertThat(confirm("late", "nack", lease("late"), ", \"delayMs\": 120000").status()).isEqualTo(204);
        assertThat(state("retry")).isEqualTo("SCHEDULED");
        assertThat(state("refused")).isEqualTo("DEAD");
        assertThat(state("last")).isEqualTo("DEAD");
        assertThat(state("late")).isEqualTo("DEAD");

        // refused by the store (the tokens no longer hold a lease): nothing counted
        assertThat(confirm("ok-1", "ack", ok1, "").status()).isEqualTo(409);
        assertThat(confirm("ok-2", "nack", ok2, "").status()).isEqualTo(409);
        assertThat(confirm("ok-2", "nack", ok2, ", \"noRetry\": true").status()).isEqualTo(409);
        assertThat(confirm("ok-1", "release", ok1, "").status()).isEqualTo(409);

        // the first release of a job allowed one attempt is free (not a failed attempt); the second uses it and ends it
        schedule("released", 1, "");
        assertThat(confirm("released", "release", lease("released"), "").status()).isEqualTo(204);
        assertThat(confirm("released", "release", lease("released"), "").status()).isEqualTo(204);
        assertThat(state("released")).isEqualTo("DEAD");

        // failed: retry, refused, last, late, the second release of released; dead: refused, last, late, released
        assertHistory(totals(7, 2, 5, 4, 1, 1));
        assertThat(latenessShown()).as("the leases' lateness in some minute").isTrue();
    }

    @Test
    void aJobWhoseLastLeaseRunsOutUnansweredIsCountedDeadOnce() {
        // one attempt; its expired lease is an unknown outcome, tried once more (EXPIRED_LAST_ATTEMPT_RETRIES), then
        // the job is dead (cause LEASE_EXPIRED) when the engine takes the second lease back
        schedule("crashy", 1, "");
        leaseFor("crashy", 300);
        Await.until("crashy due again after its lease ran out", Duration.ofSeconds(20),
                () -> state("crashy").equals("SCHEDULED"));
        leaseFor("crashy", 300);
        Await.until("crashy dead", Duration.ofSeconds(20), () -> state("crashy").equals("DEAD"));
        assertThat(producer.get("/v1/topics/" + topic + "/jobs/crashy").json().path("cause").asText())
                .isEqualTo("LEASE_EXPIRED");

        assertHistory(totals(1, 0, 0, 1, 0, 0));
    }

    @Test
    void anAsyncConfirmationOfAPushJobCountsOnceAndARefusedOneNotAtAll() {
        schedulePush("acked");
        String acked = RECEIVER.await(r -> "acked".equals(r.id()), 1, Duration.ofSeconds(20)).get(0)
                .header("Delayq-Lease-Token");
        schedulePush("ended");
        String ended = RECEIVER.await(r -> "ended".equals(r.id()), 1, Duration.ofSeconds(20)).get(0)
                .header("Delayq-Lease-Token");

        assertThat(confirm("acked", "ack", acked, "").status()).isEqualTo(204);
        assertThat(confirm("ended", "nack", ended, ", \"noRetry\": true").status()).isEqualTo(204);
        assertThat(confirm("acked", "ack", acked, "").status()).as("a second ack").isEqualTo(409);
        assertThat(confirm("ended", "nack", ended, "").status()).as("a second nack").isEqualTo(409);
        assertThat(state("acked")).isEqualTo("SUCCEEDED");
        assertThat(state("ended")).isEqualTo("DEAD");

        assertHistory(totals(2, 1, 1, 1, 0, 1));
    }

    /** The history's fields, summed over its minutes, as {@link #history} reads them. */
    private static Map<String, Long> totals(long enqueued, long delivered, long failed, long dead, long expired,
                                            long noRetry) {
        Map<String, Long> totals = new LinkedHashMap<>();
        totals.put("enqueued", enqueued);
        totals.put("delivered", delivered);
        totals.put("failed", failed);
        totals.put("dead", dead);
        totals.put("expired", expired);
        totals.put("noRetry", noRetry);
        return totals;
    }

    private void assertHistory(Map<String, Long> expected) {
        assertThat(awaitHistory(expected)).as("the topic's history, summed over its minutes").isEqualTo(expected);
    }

    /**
     * Waits until the history holds at least {@code expected} of every field (it is flushed about once a second),
     * then answers what it holds: anything counted beyond (a refused confirmation counted after all, a dead letter
     * counted twice) was counted before the last expected count, so it is in the same or an earlier flush.
     */
    private Map<String, Long> awaitHistory(Map<String, Long> expected) {
        try {
            Await.until("the history to count " + expected, () -> {
                Map<String, Long> now = history();
                return expected.entrySet().stream().allMatch(e -> now.get(e.getKey()) >= e.getValue());
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; it counts " + history(), e);
        }
        return history();
    }

    private Map<String, Long> history() {
        Answer answer = producer.get("/v1/topics/" + topic + "/history?minutes=10");
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        Map<String, Long> sums = new LinkedHashMap<>();
        for (String field : new String[] {"enqueued", "delivered", "failed", "dead", "expired", "noRetry"}) {
            long sum = 0;
            for (JsonNode minute : answer.json().path("minutes")) {
                sum += minute.path(field).asLong();
            }
            sums.put(field, sum);
        }
        return sums;
    }

    private boolean latenessShown() {
        for (JsonNode minute : producer.get("/v1/topics/" + topic + "/history?minutes=10").json().path("minutes")) {
            if (minute.path("latenessP50Ms").isNumber() && minute.path("latenessP99Ms").isNumber()) {
                return true;
            }
        }
        return false;
    }

    private void schedule(String id, int maxAttempts, String extra) {
        Answer created = producer.post("/v1/topics/" + topic + "/jobs",
                "{\"id\": \"" + id + "\", \"payload\": {}, \"maxAttempts\": " + maxAttempts + extra + "}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private void schedulePush(String id) {
        Answer created = producer.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"" + id + "\", \"payload\": {},"
                + " \"maxAttempts\": 3, \"callback\": {\"url\": \"" + RECEIVER.url("/async/" + topic) + "\"}}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    /** Leases the topic's one due job, which must be {@code id}; answers its lease token. */
    private String lease(String id) {
        Answer answer = consumer.post("/v1/topics/" + topic + "/leases", "{\"max\": 1, \"waitMs\": 5000}");
        JsonNode leases = answer.json().path("leases");
        assertThat(leases).as(answer.toString()).hasSize(1);
        assertThat(leases.get(0).path("id").asText()).isEqualTo(id);
        return leases.get(0).path("leaseToken").asText();
    }

    /** Leases the topic's one due job, which must be {@code id}, for {@code leaseMs}, and never confirms it. */
    private void leaseFor(String id, long leaseMs) {
        Answer answer = consumer.post("/v1/topics/" + topic + "/leases",
                "{\"max\": 1, \"waitMs\": 5000, \"leaseMs\": " + leaseMs + "}");
        JsonNode leases = answer.json().path("leases");
        assertThat(leases).as(answer.toString()).hasSize(1);
        assertThat(leases.get(0).path("id").asText()).isEqualTo(id);
    }

    private Answer confirm(String id, String verb, String token, String extra) {
        return consumer.post("/v1/topics/" + topic + "/jobs/" + id + "/" + verb,
                "{\"leaseToken\": \"" + token + "\"" + extra + "}");
    }

    private String state(String id) {
        return producer.get("/v1/topics/" + topic + "/jobs/" + id).json().path("state").asText();
    }
}
