package io.delayq.service.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.testing.CallbackReceiver.Reply;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.delayq.service.support.TestApps.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Expiry and the answers that mean "don't retry" (issue 29), end to end with real HTTP receivers: a 410 among the
 * topic's noRetryStatuses and a {@code Delayq-No-Retry: true} header end a job in one attempt (NO_RETRY), a 429 with
 * {@code Retry-After} postpones it without using its only attempt, a pull consumer's {@code noRetry} nack ends it; a
 * job not delivered by its {@code expiresAt} (a paused topic) or its topic's {@code expiresAfter} (a pull lane nobody
 * leases) is dead with cause EXPIRED, counted in {@code delayq_jobs_expired_total}. Every dead letter says why, and
 * {@code cause=} finds it. Bad input is refused naming the field. Nothing store-specific: runs on both stores.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class ExpiryAndNoRetryTest {
    private static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    private static final CallbackReceiver RECEIVER = new CallbackReceiver();
    private static final Pattern EXPIRED_TOTAL = Pattern.compile("(?m)^delayq_jobs_expired_total (\\S+)$");

    private Api admin;
    private String topic;

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        admin = TestApps.api(APP).as(ADMIN);
        topic = TestApps.topic();
        RECEIVER.answer(r -> switch (r.path().replaceAll("/[^/]*$", "")) {
            case "/gone" -> Reply.status(410);
            case "/refuse" -> new Reply(500, 0, Map.of("Delayq-No-Retry", "true"));
            default -> Reply.ok();
        });
    }

    @Test
    void aStatusAmongTheTopicsNoRetryStatusesEndsTheJobInOneAttemptAndTheLetterSaysWhy() {
        put("{\"noRetryStatuses\": [410, 404], \"onDead\": {\"url\": \"" + RECEIVER.url("/notices/" + topic) + "\"}}");
        assertThat(admin.get("/v1/topics/" + topic).json().path("settings").path("noRetryStatuses").toString())
                .isEqualTo("[404,410]");
        schedule("{\"id\": \"order-9\", \"payload\": {}, \"maxAttempts\": 5, \"callback\": {\"url\": \""
                + RECEIVER.url("/gone/" + topic) + "\"}}");

        JsonNode dead = awaitState("order-9", "DEAD");
        assertThat(dead.path("attempts").asInt()).as("in one attempt").isEqualTo(1);
        assertThat(dead.path("cause").asText()).isEqualTo("NO_RETRY");
        assertThat(dead.path("lastError").asText()).contains("410").contains("noRetryStatuses");
        assertThat(RECEIVER.received(r -> r.path().equals("/gone/" + topic))).hasSize(1);

        JsonNode letter = awaitLetter("order-9");
        assertThat(letter.path("cause").asText()).isEqualTo("NO_RETRY");
        assertThat(letter.path("job").path("cause").asText()).isEqualTo("NO_RETRY");
        assertThat(ids("&cause=NO_RETRY")).containsExactly("order-9");
        assertThat(ids("&cause=no-retry")).as("case and dashes do not matter").containsExactly("order-9");
        assertThat(ids("&cause=EXPIRED")).isEmpty();

        List<Received> notices = RECEIVER.await(r -> r.path().equals("/notices/" + topic), 1, Duration.ofSeconds(20));
        assertThat(notices.get(0).bodyText()).contains("\"cause\":\"NO_RETRY\"");
    }

    @Test
    void theReceiversNoRetryHeaderEndsTheJobWhateverTheStatus() {
        schedule("{\"id\": \"refused\", \"payload\": {}, \"maxAttempts\": 4, \"callback\": {\"url\": \""
                + RECEIVER.url("/refuse/" + topic) + "\"}}");
        JsonNode dead = awaitState("refused", "DEAD");
        assertThat(dead.path("attempts").asInt()).isEqualTo(1);
        assertThat(dead.path("cause").asText()).isEqualTo("NO_RETRY");
        assertThat(dead.path("lastError").asText()).contains("Delayq-No-Retry");
    }

    @Test
    void a429WithRetryAfterPostponesTheJobWithoutUsingItsOnlyAttempt() {
        AtomicInteger calls = new AtomicInteger();
        String path = "/busy/" + topic;
        RECEIVER.answer(r -> r.path().equals(path) && calls.incrementAndGet() == 1
                ? new Reply(429, 0, Map.of("Retry-After", "1")) : Reply.ok());
        schedule("{\"id\": \"busy\", \"payload\": {}, \"maxAttempts\": 1, \"callback\": {\"url\": \""
                + RECEIVER.url(path) + "\"}}");

        JsonNode done = awaitState("busy", "SUCCEEDED");
        List<Received> got = RECEIVER.received(r -> r.path().equals(path));
        assertThat(got).extracting(r -> r.header("Delayq-Attempt")).containsExactly("1", "1");
        assertThat(got.get(1).receivedAtMs() - got.get(0).receivedAtMs()).as("waited for Retry-After: 1")
                .isGreaterThanOrEqualTo(900);
        assertThat(done.path("attempts").asInt()).isEqualTo(1);
        assertThat(done.path("history").get(0).path("httpStatus").asInt()).isEqualTo(429);
        assertThat(done.path("history").get(0).path("held").asBoolean()).isTrue();
        assertThat(done.has("cause")).as("not dead: no cause").isFalse();
    }

    @Test
    void aJobNotDeliveredByItsExpiresAtIsDeadWithCauseExpiredAndNeverDelivered() {
        double before = expiredTotal();
        put("{\"paused\": true}");
        String expiresAt = Instant.now().plusMillis(1_500).truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
                .toString();
        schedule("{\"id\": \"reminder\", \"payload\": {}, \"callback\": {\"url\": \"" + RECEIVER.url("/late/" + topic)
                + "\"}, \"expiresAt\": \"" + expiresAt + "\"}");
        assertThat(admin.get("/v1/topics/" + topic + "/jobs/reminder").json().path("expiresAt").asText())
                .isEqualTo(expiresAt);

        JsonNode dead = awaitState("reminder", "DEAD");
        assertThat(dead.path("cause").asText()).isEqualTo("EXPIRED");
        assertThat(dead.path("attempts").asInt()).isZero();
        put("{\"paused\": false}");
        assertThat(awaitLetter("reminder").path("cause").asText()).isEqualTo("EXPIRED");
        assertThat(ids("&cause=EXPIRED")).containsExactly("reminder");
        assertThat(RECEIVER.received(r -> r.path().equals("/late/" + topic))).isEmpty();
        Await.until("the expiry counted", 10_000, () -> expiredTotal() >= before + 1);
    }

    @Test
    void theTopicsExpiresAfterEndsPullJobsNobodyLeasedInTime() {
        put("{\"expiresAfter\": \"1s\"}");
        assertThat(admin.get("/v1/topics/" + topic).json().path("settings").path("expiresAfter").asText())
                .isNotBlank();
        schedule("{\"id\": \"pull-me\", \"payload\": {}}");
        schedule("{\"id\": \"later\", \"payload\": {}, \"delayMs\": 600000}");

        JsonNode dead = awaitState("pull-me", "DEAD");
        assertThat(dead.path("cause").asText()).isEqualTo("EXPIRED");
        Answer leased = admin.post("/v1/topics/" + topic + "/leases", "{\"max\": 10, \"waitMs\": 0}");
        assertThat(leased.json().path("leases")).as(leased.toString()).isEmpty();
        assertThat(admin.get("/v1/topics/" + topic + "/jobs/later").json().path("state").asText())
                .isEqualTo("SCHEDULED");
    }

    @Test
    void aPullConsumersNoRetryNackEndsTheJob() {
        schedule("{\"id\": \"poison\", \"payload\": {}, \"maxAttempts\": 5}");
        JsonNode lease = admin.post("/v1/topics/" + topic + "/leases", "{\"max\": 1, \"waitMs\": 5000}").json()
                .path("leases").path(0);
        String token = lease.path("leaseToken").asText();

        Answer both = admin.post("/v1/topics/" + topic + "/jobs/poison/nack",
                "{\"leaseToken\": \"" + token + "\", \"noRetry\": true, \"delayMs\": 10}");
        assertThat(both.status()).as(both.toString()).isBetween(400, 499);
        assertThat(both.detail()).contains("noRetry");

        Answer nack = admin.post("/v1/topics/" + topic + "/jobs/poison/nack",
                "{\"leaseToken\": \"" + token + "\", \"noRetry\": true, \"error\": \"malformed order\"}");
        assertThat(nack.status()).as(nack.toString()).isEqualTo(204);
        JsonNode dead = admin.get("/v1/topics/" + topic + "/jobs/poison").json();
        assertThat(dead.path("state").asText()).isEqualTo("DEAD");
        assertThat(dead.path("cause").asText()).isEqualTo("NO_RETRY");
        assertThat(dead.path("attempts").asInt()).isEqualTo(1);
        assertThat(dead.path("lastError").asText()).isEqualTo("malformed order");
    }

    @Test
    void badInputIsRefusedNamingTheFieldAndChangesNothing() {
        String jobs = "/v1/topics/" + topic + "/jobs";
        Instant runAt = Instant.now().plus(Duration.ofDays(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        refused(admin.post(jobs, "{\"id\": \"a\", \"payload\": {}, \"runAt\": \"" + runAt + "\","
                + " \"expiresAt\": \"" + runAt.minus(Duration.ofHours(1)) + "\"}"), "expiresAt");
        refused(admin.post(jobs, "{\"id\": \"b\", \"payload\": {}, \"expiresAt\": \"tomorrow\"}"), "expiresAt");
        refused(admin.post(jobs, "{\"id\": \"c\", \"payload\": {}, \"expiresAt\": \"2020-01-01T00:00:00Z\"}"),
                "expiresAt");
        refused(admin.post(jobs, "{\"id\": \"d\", \"payload\": {}, \"delayMs\": 60000, \"expiresAt\": \""
                + Instant.now().plusSeconds(30) + "\"}"), "expiresAt");
        assertThat(admin.get(jobs + "/a").status()).isEqualTo(404);

        // moved past its own expiry, a job would never be delivered: refused, and the job keeps its run time
        Answer kept = admin.post(jobs, "{\"id\": \"e\", \"payload\": {}, \"runAt\": \"" + runAt + "\","
                + " \"expiresAt\": \"" + runAt.plus(Duration.ofHours(1)) + "\"}");
        assertThat(kept.status()).as(kept.toString()).isEqualTo(201);
        refused(admin.post(jobs + "/e/reschedule", "{\"runAt\": \"" + runAt.plus(Duration.ofHours(2)) + "\"}"),
                "expiresAt");
        refused(admin.post(jobs + "/e/reschedule", "{\"delayMs\": " + Duration.ofDays(2).toMillis() + "}"),
                "expiresAt");
        assertThat(Instant.parse(admin.get(jobs + "/e").json().path("runAt").asText())).isEqualTo(runAt);
        Answer within = admin.post(jobs + "/e/reschedule", "{\"runAt\": \"" + runAt.plus(Duration.ofMinutes(30))
                + "\"}");
        assertThat(within.status()).as("a move before the expiry: %s", within).isEqualTo(200);

        refused(admin.put("/v1/topics/" + topic, "{\"noRetryStatuses\": [200]}"), "noRetryStatuses");
        refused(admin.put("/v1/topics/" + topic, "{\"noRetryStatuses\": [410, 99]}"), "noRetryStatuses");
        refused(admin.put("/v1/topics/" + topic, "{\"expiresAfter\": \"10ms\"}"), "expiresAfter");
        assertThat(admin.get("/v1/topics/" + topic).json().path("settings").has("noRetryStatuses")).isFalse();

        refused(admin.get("/v1/admin/dead-letters?cause=TIRED"), "cause");
        Answer bulk = admin.post("/v1/admin/bulk-operations",
                "{\"kind\": \"purge\", \"dryRun\": true, \"filter\": {\"topic\": \"" + topic + "\", \"cause\": \"x\"}}");
        refused(bulk, "cause");
        Answer dry = admin.post("/v1/admin/bulk-operations",
                "{\"kind\": \"purge\", \"dryRun\": true, \"filter\": {\"topic\": \"" + topic + "\", \"cause\": \"EXPIRED\"}}");
        assertThat(dry.status()).as(dry.toString()).isLessThan(300);
    }

    private static void refused(Answer answer, String field) {
        assertThat(answer.status()).as(answer.toString()).isBetween(400, 499);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).as(answer.toString()).contains(field);
    }

    private void put(String settings) {
        Answer put = admin.put("/v1/topics/" + topic, settings);
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
    }

    private void schedule(String body) {
        Answer created = admin.post("/v1/topics/" + topic + "/jobs", body);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    private JsonNode awaitState(String id, String state) {
        Await.until(id + " " + state, Duration.ofSeconds(20),
                () -> admin.get("/v1/topics/" + topic + "/jobs/" + id).json().path("state").asText().equals(state));
        return admin.get("/v1/topics/" + topic + "/jobs/" + id).json();
    }

    private JsonNode awaitLetter(String id) {
        Await.until("the dead letter " + id, Duration.ofSeconds(45),
                () -> admin.get("/v1/admin/dead-letters/" + topic + "/" + id).status() == 200);
        return admin.get("/v1/admin/dead-letters/" + topic + "/" + id).json();
    }

    private List<String> ids(String filter) {
        Answer page = admin.get("/v1/admin/dead-letters?topic=" + topic + filter);
        assertThat(page.status()).as(page.toString()).isEqualTo(200);
        List<String> ids = new java.util.ArrayList<>();
        page.json().path("items").forEach(item -> ids.add(item.path("id").asText()));
        return ids;
    }

    private double expiredTotal() {
        Answer answer = new Api("http://127.0.0.1:" + APP.getAdminPort(), null).get("/metrics/prometheus");
        Matcher m = EXPIRED_TOTAL.matcher(answer.raw().body());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
