package io.delayq.service.listing;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DeadLetters;
import io.delayq.service.support.DirectStore;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /v1/topics/{topic}/jobs} and the bulk operations on jobs, on the whole service and its store: issue 29's
 * "a bug scheduled the wrong reminders: show them to me and cancel them", and every refusal changing nothing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class JobListingTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    private static final long DAY = 86_400_000L;
    private static DirectStore direct;

    private Api producer;
    private Api admin;
    private String topic;
    private long base;

    @BeforeAll
    static void openStore() {
        direct = DirectStore.of(APP);
    }

    @AfterAll
    static void closeStore() throws Exception {
        direct.close();
    }

    @BeforeEach
    void setUp() {
        producer = TestApps.api(APP);
        admin = producer.as(TestApps.ADMIN);
        topic = TestApps.topic();
        base = store().now() + DAY;
    }

    private static JobStore store() {
        return direct.store();
    }

    /**
     * The "done when": 10,000 jobs of mixed payloads, 37 of them the wrong ones; found by a payload field, a
     * dry run counts them, a confirmation with too small a count is refused, the operation cancels them, and the other
     * 9,963 are untouched (same state, same run time).
     */
    @Test
    @Tag("slow")
    void tenThousandJobsThirtySevenFoundByAPayloadFieldCancelledInBulkTheRestUntouched() {
        Map<String, Long> runAt = new HashMap<>();
        Set<String> wrong = new TreeSet<>();
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            String id = "reminder-" + i;
            boolean isWrong = i % 270 == 13 && wrong.size() < 37;
            String payload = switch (i % 5) {
                case 0 -> "{\"campaign\":\"" + (isWrong ? "wrong-2026" : "spring") + "\",\"user\":" + i + "}";
                case 1 -> "{\"campaign\":{\"name\":\"wrong-2026\"},\"user\":\"u" + i + "\"}"; // an object, not the value
                case 2 -> "[\"campaign\",\"wrong-2026\"]";
                case 3 -> "{\"user\":" + i + ",\"text\":\"campaign wrong-2026\"}";
                default -> isWrong ? "{\"campaign\":\"wrong-2026\",\"lang\":\"de\"}" : "\"just text " + i + "\"";
            };
            if (isWrong && i % 5 != 0 && i % 5 != 4) {
                payload = "{\"campaign\":\"wrong-2026\",\"user\":" + i + "}";
            }
            if (isWrong) {
                wrong.add(id);
            }
            long at = base + (i % 600) * 1_000L;
            runAt.put(id, at);
            NewJob job = NewJob.at(topic, id, payload, at, 3);
            batch.add(i % 3 == 0 ? job.withDelivery(Delivery.PUSH) : job);
            if (batch.size() == 500) {
                store().enqueue(batch);
                batch.clear();
            }
        }
        assertThat(wrong).hasSize(37);

        String filter = "payloadField=campaign&payloadValue=wrong-2026";
        List<JsonNode> found = allPages(producer, "/v1/topics/" + topic + "/jobs?limit=100&" + filter);
        assertThat(found).extracting(j -> j.path("id").asText()).containsExactlyInAnyOrderElementsOf(wrong);

        String body = "{\"target\":\"jobs\",\"kind\":\"cancel\",\"filter\":{\"topic\":\"" + topic
                + "\",\"payloadField\":\"campaign\",\"payloadValue\":\"wrong-2026\"}";
        Answer dry = admin.post("/v1/admin/bulk-operations", body + ",\"dryRun\":true}");
        assertThat(dry.status()).as(dry.toString()).isEqualTo(200);
        assertThat(dry.json().path("matching").asLong()).isEqualTo(37);

        Answer tooFew = admin.post("/v1/admin/bulk-operations", body + ",\"expectedCount\":36}");
        assertThat(tooFew.status()).as(tooFew.toString()).isEqualTo(409);
        assertThat(store().find(new JobRef(topic, wrong.iterator().next())).orElseThrow().state())
                .as("a refused confirmation cancels nothing").isEqualTo(JobState.SCHEDULED);

        Answer started = admin.post("/v1/admin/bulk-operations", body + ",\"expectedCount\":37}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        assertThat(started.json().path("target").asText()).isEqualTo("jobs");
        assertThat(started.json().path("kind").asText()).isEqualTo("cancel");
        assertThat(started.json().path("total").asLong()).isEqualTo(37);
        assertThat(started.json().path("filter").asText()).contains("topic=" + topic).contains("wrong-2026");
        JsonNode done = new DeadLetters(admin).awaitFinished(started.json().path("id").asText());
        assertThat(done.path("state").asText()).as(done.toString()).isEqualTo("done");
        assertThat(done.path("done").asLong()).isEqualTo(37);
        assertThat(done.path("failed").asLong()).isZero();

        for (String id : wrong) {
            assertThat(store().find(new JobRef(topic, id)).orElseThrow().state()).as(id).isEqualTo(JobState.CANCELLED);
        }
        List<JsonNode> cancelled = allPages(producer, "/v1/topics/" + topic + "/jobs?state=cancelled&limit=1000");
        assertThat(cancelled).extracting(j -> j.path("id").asText()).containsExactlyInAnyOrderElementsOf(wrong);

        List<JsonNode> rest = allPages(producer, "/v1/topics/" + topic + "/jobs?limit=1000");
        assertThat(rest).hasSize(9_963);
        for (JsonNode job : rest) {
            String id = job.path("id").asText();
            assertThat(wrong).doesNotContain(id);
            assertThat(job.path("state").asText()).isEqualTo("SCHEDULED");
            assertThat(java.time.Instant.parse(job.path("runAt").asText()).toEpochMilli()).as(id)
                    .isEqualTo(runAt.get(id));
        }
        Answer audit = admin.get("/v1/admin/audit?limit=50");
        assertThat(audit.toString()).contains("bulk.start").contains("bulk.finish");
    }

    @Test
    void producersAndViewersReadTheListingWithHeaderValuesMasked() {
        store().enqueue(new NewJob(topic, "with-secret", "{}", null, base, 3, null,
                new Callback("https://example.com/hook", Map.of("Authorization", "Bearer s3cret-value")), null,
                false, Delivery.PUSH));
        store().enqueue(NewJob.at(topic, "plain", "{}", base + 1, 3));
        for (String token : List.of(TestApps.PRODUCER, "viewer-token", TestApps.ADMIN)) {
            Answer page = producer.as(token).get("/v1/topics/" + topic + "/jobs");
            assertThat(page.status()).as(token + ": " + page).isEqualTo(200);
            assertThat(page.json().path("items")).extracting(j -> j.path("id").asText())
                    .containsExactly("with-secret", "plain");
            assertThat(page.raw().body()).doesNotContain("s3cret-value").contains("Authorization");
            assertThat(page.json().has("nextCursor")).isFalse();
        }
        assertThat(producer.as(TestApps.CONSUMER).get("/v1/topics/" + topic + "/jobs").status()).isEqualTo(403);
        assertThat(producer.as("no-such-token").get("/v1/topics/" + topic + "/jobs").status()).isEqualTo(401);
    }

    @Test
    void theDueRangeIdPrefixAndLimitNarrowTheListing() {
        for (int i = 0; i < 6; i++) {
            store().enqueue(NewJob.at(topic, (i % 2 == 0 ? "a-" : "b-") + i, "{}", base + i * 60_000L, 3));
        }
        String from = enc(java.time.Instant.ofEpochMilli(base + 60_000).toString());
        String to = enc(java.time.Instant.ofEpochMilli(base + 240_000).toString());
        assertThat(allPages(producer, "/v1/topics/" + topic + "/jobs?limit=1&from=" + from + "&to=" + to))
                .extracting(j -> j.path("id").asText()).containsExactly("b-1", "a-2", "b-3");
        assertThat(allPages(producer, "/v1/topics/" + topic + "/jobs?idPrefix=a-&state=scheduled"))
                .extracting(j -> j.path("id").asText()).containsExactly("a-0", "a-2", "a-4");
        Answer first = producer.get("/v1/topics/" + topic + "/jobs?limit=2");
        assertThat(first.json().path("items")).hasSize(2);
        assertThat(first.json().path("nextCursor").asText()).isNotBlank();
    }

    @Test
    void aRescheduleShiftsEachJobOnceAndRunNowMakesThemDue() {
        for (int i = 0; i < 5; i++) {
            store().enqueue(NewJob.at(topic, "shift-" + i, "{\"batch\":7}", base + i, 3));
        }
        store().enqueue(NewJob.at(topic, "other", "{\"batch\":8}", base, 3));
        String filter = "\"filter\":{\"topic\":\"" + topic + "\",\"payloadField\":\"batch\",\"payloadValue\":\"7\"}";
        Answer shift = admin.post("/v1/admin/bulk-operations", "{\"target\":\"jobs\",\"kind\":\"reschedule\","
                + "\"shiftMs\":3600000," + filter + "}");
        assertThat(shift.status()).as(shift.toString()).isEqualTo(202);
        JsonNode done = new DeadLetters(admin).awaitFinished(shift.json().path("id").asText());
        assertThat(done.path("done").asLong()).as(done.toString()).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            Job job = store().find(new JobRef(topic, "shift-" + i)).orElseThrow();
            assertThat(job.runAt()).as("moved once, not again when met further on").isEqualTo(base + i + 3_600_000);
        }
        assertThat(store().find(new JobRef(topic, "other")).orElseThrow().runAt()).isEqualTo(base);

        String at = java.time.Instant.ofEpochMilli(base + 7_200_000).toString();
        Answer moved = admin.post("/v1/admin/bulk-operations", "{\"target\":\"jobs\",\"kind\":\"reschedule\","
                + "\"runAt\":\"" + at + "\"," + filter + "}");
        assertThat(new DeadLetters(admin).awaitFinished(moved.json().path("id").asText()).path("done").asLong())
                .isEqualTo(5);
        assertThat(store().find(new JobRef(topic, "shift-3")).orElseThrow().runAt()).isEqualTo(base + 7_200_000);

        Answer now = admin.post("/v1/admin/bulk-operations", "{\"target\":\"jobs\",\"kind\":\"run-now\"," + filter
                + "}");
        assertThat(now.json().path("kind").asText()).isEqualTo("run-now");
        assertThat(new DeadLetters(admin).awaitFinished(now.json().path("id").asText()).path("done").asLong())
                .isEqualTo(5);
        Job due = store().find(new JobRef(topic, "shift-0")).orElseThrow();
        assertThat(due.runAt()).as("due now, not a day away").isLessThan(base - DAY / 2);
        assertThat(store().find(new JobRef(topic, "other")).orElseThrow().runAt()).isEqualTo(base);
    }

    /**
     * A bulk reschedule refuses, job by job, to move a job past its own {@code expiresAt} (it would never be
     * delivered), as a single job's reschedule does: those jobs count as failed, keep their run time, and the
     * operation's error names one; the others move.
     */
    @Test
    void aBulkRescheduleLeavesJobsItWouldMovePastTheirExpiry() {
        store().enqueue(NewJob.at(topic, "expires-soon", "{\"batch\":9}", base, 3).withExpiresAt(base + 60_000));
        store().enqueue(NewJob.at(topic, "expires-late", "{\"batch\":9}", base, 3).withExpiresAt(base + 7_200_000));
        store().enqueue(NewJob.at(topic, "never-expires", "{\"batch\":9}", base, 3));
        Answer shift = admin.post("/v1/admin/bulk-operations", "{\"target\":\"jobs\",\"kind\":\"reschedule\","
                + "\"shiftMs\":3600000,\"filter\":{\"topic\":\"" + topic + "\"}}");
        assertThat(shift.status()).as(shift.toString()).isEqualTo(202);
        JsonNode done = new DeadLetters(admin).awaitFinished(shift.json().path("id").asText());
        assertThat(done.path("done").asLong()).as(done.toString()).isEqualTo(2);
        assertThat(done.path("failed").asLong()).as(done.toString()).isEqualTo(1);
        assertThat(done.path("lastError").asText()).as(done.toString()).contains("expires-soon").contains("expiresAt");
        assertThat(store().find(new JobRef(topic, "expires-soon")).orElseThrow().runAt()).isEqualTo(base);
        assertThat(store().find(new JobRef(topic, "expires-late")).orElseThrow().runAt()).isEqualTo(base + 3_600_000);
        assertThat(store().find(new JobRef(topic, "never-expires")).orElseThrow().runAt()).isEqualTo(base + 3_600_000);
    }

    @Test
    void badInputIsRefusedNamingTheFieldAndChangesNothing() {
        store().enqueue(NewJob.at(topic, "keep", "{\"a\":1}", base, 3));
        String jobs = "/v1/topics/" + topic + "/jobs";
        Answer half = producer.get(jobs + "?payloadValue=1");
        assertThat(half.status()).as(half.toString()).isEqualTo(400);
        assertThat(half.json().path("fields").toString()).isEqualTo("[\"payloadField\",\"payloadValue\"]");
        assertThat(producer.get(jobs + "?payloadField=a").status()).isEqualTo(400);
        assertRefused(producer.get(jobs + "?state=waiting"), 422, "state");
        assertRefused(producer.get(jobs + "?state=scheduled,dead"), 422, "state");
        assertRefused(producer.get(jobs + "?from=20260101"), 422, "from");
        assertRefused(producer.get(jobs + "?limit=0"), 422, "limit");
        assertRefused(producer.get(jobs + "?limit=1001"), 422, "limit");
        assertRefused(producer.get(jobs + "?cursor=%25%25"), 422, "cursor");
        assertRefused(producer.get(jobs + "?idPrefix=a%20b"), 422, "idPrefix");
        assertRefused(producer.get(jobs + "?payloadField=a..b&payloadValue=1"), 422, "payloadField");
        assertRefused(producer.get("/v1/topics/../jobs"), 422, "topic");

        String bulk = "/v1/admin/bulk-operations";
        Answer noTopic = admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"cancel\",\"filter\":{}}");
        assertThat(noTopic.status()).as(noTopic.toString()).isEqualTo(400);
        assertThat(noTopic.detail()).contains("topic");
        assertThat(admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"cancel\"}").status()).isEqualTo(400);
        String onTopic = "\"filter\":{\"topic\":\"" + topic + "\"}";
        assertRefused(admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"reschedule\"," + onTopic + "}"), 400,
                "shiftMs");
        assertRefused(admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"reschedule\",\"shiftMs\":1,\"runAt\":"
                + "\"2030-01-01T00:00:00Z\"," + onTopic + "}"), 400, "runAt");
        assertRefused(admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"replay\"," + onTopic + "}"), 422, "kind");
        assertRefused(admin.post(bulk, "{\"kind\":\"cancel\"," + onTopic + "}"), 422, "jobs");
        assertRefused(admin.post(bulk, "{\"target\":\"topics\",\"kind\":\"cancel\"," + onTopic + "}"), 422, "target");
        assertRefused(admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"cancel\",\"shiftMs\":5," + onTopic + "}"),
                422, "shiftMs");
        assertRefused(admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"cancel\",\"filter\":{\"topic\":\"" + topic
                + "\",\"host\":\"a.example\"}}"), 422, "host");
        assertRefused(admin.post(bulk, "{\"kind\":\"purge\",\"filter\":{\"topic\":\"" + topic
                + "\",\"state\":\"dead\"}}"), 422, "state");
        assertRefused(admin.post(bulk, "{\"target\":\"jobs\",\"kind\":\"run-now\",\"filter\":{\"topic\":\"" + topic
                + "\",\"state\":\"bogus\"}}"), 422, "state");
        assertThat(producer.post(bulk, "{\"target\":\"jobs\",\"kind\":\"cancel\"," + onTopic + "}").status())
                .as("a producer reads jobs but runs no bulk operation").isEqualTo(403);

        Job kept = store().find(new JobRef(topic, "keep")).orElseThrow();
        assertThat(kept.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(kept.runAt()).isEqualTo(base);
    }

    private static void assertRefused(Answer answer, int status, String field) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).as(answer.toString()).contains(field);
    }

    /** Every page, following {@code nextCursor}. */
    private static List<JsonNode> allPages(Api api, String first) {
        List<JsonNode> items = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Answer page = api.get(first + (cursor == null ? "" : "&cursor=" + enc(cursor)));
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            page.json().path("items").forEach(items::add);
            cursor = page.json().path("nextCursor").isTextual() ? page.json().path("nextCursor").asText() : null;
            assertThat(++pages).isLessThan(1_000);
        } while (cursor != null);
        return items;
    }

    private static String enc(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
