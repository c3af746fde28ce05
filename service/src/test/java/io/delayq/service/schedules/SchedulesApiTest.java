package io.delayq.service.schedules;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.JobRef;
import io.delayq.core.schedule.Fire;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.testing.Await;
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

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recurring schedules through the API, on the store selected for the run: managing them, who may, bad input refused
 * naming the field and changing nothing, fires with their jobs, run now, and the misfire policies after a (simulated)
 * stop of every instance.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class SchedulesApiTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    private static final String VIEWER = "viewer-token";
    private static final String NIGHTLY = "{\"cron\":\"0 0 2 * * *\",\"timeZone\":\"Europe/Berlin\","
            + "\"job\":{\"payload\":{\"report\":\"nightly\"},\"maxAttempts\":3}}";

    private static Api api(String token) {
        return TestApps.api(APP).as(token);
    }

    private static String path(String topic, String name) {
        return "/v1/topics/" + topic + "/schedules/" + name;
    }

    @Test
    void producersManageSchedulesAndViewersReadThem() {
        String topic = TestApps.topic();
        Api producer = api(TestApps.PRODUCER);
        Answer created = producer.put(path(topic, "nightly"), NIGHTLY);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.json().path("misfire").asText()).isEqualTo("skip");
        assertThat(created.json().path("misfireAfter").asText()).isEqualTo("1 minute");
        JsonNode next = created.json().path("nextFireTimes");
        assertThat(next).hasSize(5);
        assertThat(next.get(0).asText()).matches("\\d{4}-\\d\\d-\\d\\dT02:00:00\\+0[12]:00");

        Answer replaced = producer.put(path(topic, "nightly"), NIGHTLY.replace("0 0 2", "0 30 3"));
        assertThat(replaced.status()).isEqualTo(200);
        assertThat(replaced.json().path("cron").asText()).isEqualTo("0 30 3 * * *");
        producer.put(path(topic, "another"), NIGHTLY);

        Api viewer = api(VIEWER);
        Answer one = viewer.get(path(topic, "nightly"));
        assertThat(one.status()).isEqualTo(200);
        assertThat(one.json().path("job").path("payload").path("report").asText()).isEqualTo("nightly");
        Answer list = viewer.get("/v1/topics/" + topic + "/schedules?limit=1");
        assertThat(list.json().path("items")).hasSize(1);
        assertThat(list.json().at("/items/0/name").asText()).isEqualTo("another");
        Answer rest = viewer.get("/v1/topics/" + topic + "/schedules?limit=1&cursor="
                + list.json().path("nextCursor").asText());
        assertThat(rest.json().at("/items/0/name").asText()).isEqualTo("nightly");
        assertThat(rest.json().has("nextCursor")).isFalse();
        assertThat(viewer.put(path(topic, "mine"), NIGHTLY).status()).isEqualTo(403);
        assertThat(viewer.post(path(topic, "nightly") + "/run", "").status()).isEqualTo(403);
        assertThat(api(TestApps.CONSUMER).get(path(topic, "nightly")).status()).isEqualTo(403);

        Answer paused = producer.post(path(topic, "nightly") + "/pause", "");
        assertThat(paused.json().path("paused").asBoolean()).isTrue();
        assertThat(paused.json().path("nextFireTimes")).isEmpty();
        assertThat(producer.post(path(topic, "nightly") + "/resume", "").json().path("nextFireTimes")).hasSize(5);

        assertThat(producer.delete(path(topic, "nightly")).status()).isEqualTo(204);
        assertThat(producer.get(path(topic, "nightly")).status()).isEqualTo(404);
        assertThat(producer.delete(path(topic, "nightly")).status()).isEqualTo(404);
    }

    @Test
    void aPutThatSendsMaskedHeaderValuesBackKeepsTheStoredValues() throws Exception {
        String topic = TestApps.topic();
        Api producer = api(TestApps.PRODUCER);
        String withSecrets = "{\"cron\":\"0 0 2 * * *\",\"job\":{\"payload\":1,"
                + "\"callback\":{\"url\":\"http://127.0.0.1:9/hook\",\"headers\":{\"Authorization\":\"Bearer s3cret\"}},"
                + "\"onDead\":{\"url\":\"http://127.0.0.1:9/dead\",\"headers\":{\"X-Key\":\"k1\"}}}}";
        assertThat(producer.put(path(topic, "edited"), withSecrets).status()).isEqualTo(201);
        JsonNode shown = producer.get(path(topic, "edited")).json().path("job");
        assertThat(shown.at("/callback/headers/Authorization").asText()).isEqualTo("********");

        // the edit form's round trip: the template as shown (masked), another cron
        Answer edited = producer.put(path(topic, "edited"), "{\"cron\":\"0 30 3 * * *\",\"job\":" + shown + "}");
        assertThat(edited.status()).as(edited.toString()).isEqualTo(200);
        assertThat(edited.json().at("/job/callback/headers/Authorization").asText()).isEqualTo("********");

        // a mask under a name with nothing stored, or with the callback moved to another origin: refused, unchanged
        Answer unknownName = producer.put(path(topic, "edited"), "{\"cron\":\"0 0 4 * * *\",\"job\":"
                + shown.toString().replace("Authorization", "X-Other") + "}");
        assertThat(unknownName.status()).as(unknownName.toString()).isEqualTo(422);
        assertThat(unknownName.detail()).startsWith("job.callback.headers.").contains("X-Other");
        Answer moved = producer.put(path(topic, "edited"), "{\"cron\":\"0 0 4 * * *\",\"job\":"
                + shown.toString().replace("127.0.0.1:9/hook", "127.0.0.1:10/hook") + "}");
        assertThat(moved.status()).as(moved.toString()).isEqualTo(422);
        assertThat(moved.detail()).contains("origin");
        assertThat(producer.get(path(topic, "edited")).json().path("cron").asText()).isEqualTo("0 30 3 * * *");
        Answer fresh = producer.put(path(topic, "fresh"), "{\"cron\":\"0 0 2 * * *\",\"job\":" + shown + "}");
        assertThat(fresh.status()).as("a new schedule has no stored value to keep").isEqualTo(422);

        // the jobs it enqueues carry the stored values
        String jobId = producer.post(path(topic, "edited") + "/run", "").json().path("jobId").asText();
        try (DirectStore direct = DirectStore.of(APP)) {
            io.delayq.core.Job job = direct.store().find(new JobRef(topic, jobId)).orElseThrow();
            assertThat(job.callback().headers()).containsEntry("Authorization", "Bearer s3cret");
            assertThat(job.onDead().headers()).containsEntry("X-Key", "k1");
        }
    }

    @Test
    void badInputIsRefusedNamingTheFieldAndStoresNothing() {
        String topic = TestApps.topic();
        Api producer = api(TestApps.PRODUCER);
        assertFields(producer.put(path(topic, "s"), NIGHTLY.replace("0 0 2 * * *", "0 0 25 * * *")), "cron");
        assertFields(producer.put(path(topic, "s"), NIGHTLY.replace("0 0 2 * * *", "every day")), "cron");
        assertFields(producer.put(path(topic, "s"), NIGHTLY.replace("Europe/Berlin", "Europe/Atlantis")),
                "timeZone");
        assertFields(producer.put(path(topic, "s"), NIGHTLY.replace("{\"cron\"",
                "{\"startAt\":\"2030-01-02T00:00:00Z\",\"endAt\":\"2030-01-01T00:00:00Z\",\"cron\"")), "endAt");
        assertFields(producer.put(path(topic, "s"), NIGHTLY.replace("{\"cron\"",
                "{\"startAt\":\"tomorrow\",\"cron\"")), "startAt");
        assertFields(producer.put(path(topic, "s"), NIGHTLY.replace("{\"cron\"", "{\"misfire\":\"twice\",\"cron\"")),
                "misfire");
        assertFields(producer.put(path(topic, "..."), NIGHTLY), "name");
        Answer noPayload = producer.put(path(topic, "s"), "{\"cron\":\"* * * * * *\",\"job\":{\"maxAttempts\":3}}");
        assertThat(noPayload.status()).as(noPayload.toString()).isEqualTo(422);
        assertThat(noPayload.detail()).startsWith("job.payload");
        Answer idInTemplate = producer.put(path(topic, "s"), "{\"cron\":\"* * * * * *\",\"job\":{\"id\":\"x\","
                + "\"payload\":1}}");
        assertThat(idInTemplate.status()).isEqualTo(400);
        assertThat(producer.get(path(topic, "s")).status()).isEqualTo(404);
        assertThat(producer.get("/v1/topics/" + topic + "/schedules").json().path("items")).isEmpty();

        Answer planted = producer.post("/v1/topics/" + topic + "/jobs", "{\"id\":\":s:1\",\"payload\":1}");
        assertThat(planted.status()).as("producers cannot use the schedules' ids").isEqualTo(422);
        assertThat(planted.detail()).contains("reserved for the jobs of recurring schedules");
    }

    private static void assertFields(Answer answer, String field) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(400);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("fields").toString()).contains("\"" + field + "\"");
    }

    @Test
    void aScheduleFiresEachSecondWithItsJobsAndRunsNowOnAsk() {
        String topic = TestApps.topic();
        Api producer = api(TestApps.PRODUCER);
        assertThat(producer.put(path(topic, "tick"), "{\"cron\":\"* * * * * *\",\"job\":{\"payload\":{\"n\":1}}}")
                .status()).isEqualTo(201);
        Await.until("three fires", () -> producer.get(path(topic, "tick")).json().path("lastFires").size() >= 3);
        JsonNode fires = producer.get(path(topic, "tick")).json().path("lastFires");
        for (JsonNode fire : fires) {
            assertThat(fire.path("kind").asText()).isEqualTo("scheduled");
            String id = fire.path("jobId").asText();
            assertThat(id).startsWith(":tick:");
            Answer job = producer.get("/v1/topics/" + topic + "/jobs/" + id);
            assertThat(job.status()).as(id).isEqualTo(200);
            assertThat(job.json().path("payload").path("n").asInt()).isEqualTo(1);
        }
        assertThat(fires.get(0).path("fireAt").asText()).isGreaterThan(fires.get(1).path("fireAt").asText());

        producer.post(path(topic, "tick") + "/pause", "");
        Answer run = producer.post(path(topic, "tick") + "/run", "");
        assertThat(run.status()).as(run.toString()).isEqualTo(202);
        String runId = run.json().path("jobId").asText();
        assertThat(runId).startsWith(":tick:run-");
        assertThat(producer.get("/v1/topics/" + topic + "/jobs/" + runId).status()).isEqualTo(200);
        JsonNode latest = producer.get(path(topic, "tick")).json().path("lastFires").get(0);
        assertThat(latest.path("kind").asText()).isEqualTo("run_now");
        assertThat(latest.path("jobId").asText()).isEqualTo(runId);
    }

    @Test
    void missedFiresAreSkippedOrMadeOneJobByTheMisfirePolicy() throws Exception {
        String topic = TestApps.topic();
        Api producer = api(TestApps.PRODUCER);
        // every minute, so that the test's minute holds at most one fire on time after the catch-up step
        producer.put(path(topic, "skipper"), "{\"cron\":\"0 * * * * *\",\"misfire\":\"skip\","
                + "\"job\":{\"payload\":1}}");
        producer.put(path(topic, "catcher"), "{\"cron\":\"0 * * * * *\",\"misfire\":\"once\","
                + "\"job\":{\"payload\":2}}");
        try (DirectStore direct = DirectStore.of(APP)) {
            ScheduleStore schedules = direct.store().schedules();
            // as if every instance had been down for ten minutes: the cursors go back, the schedules are due now
            for (String name : List.of("skipper", "catcher")) {
                ScheduleRecord r = schedules.get(topic, name).orElseThrow();
                assertThat(schedules.advance(topic, name, r.cursorMs(), r.cursorMs() - 600_000, r.cursorMs() - 600_000,
                        null, null).outcome()).isEqualTo(ScheduleStore.Advance.APPLIED);
            }
            // a minute may turn while the test runs, adding a fire on time after (or before) the catch-up: the
            // catch-up is looked for among the fires, not taken as the latest
            Await.until("both caught up", () -> catchUp(schedules, topic, "skipper") != null
                    && catchUp(schedules, topic, "catcher") != null);
            Fire skipped = catchUp(schedules, topic, "skipper");
            assertThat(skipped.kind()).isEqualTo(Fire.Kind.SKIPPED);
            assertThat(skipped.jobId()).isNull();
            assertThat(skipped.missed()).isBetween(8, 10);
            Fire caught = catchUp(schedules, topic, "catcher");
            assertThat(caught.kind()).isEqualTo(Fire.Kind.CATCH_UP);
            assertThat(caught.missed()).isBetween(8, 10);
            assertThat(direct.store().find(new JobRef(topic, caught.jobId()))).hasValueSatisfying(
                    j -> assertThat(j.payload()).isEqualTo("2"));
            // jobs in the topic: the one catch-up, and at most one fire on time per schedule since
            List<String> kinds = new ArrayList<>();
            schedules.list(topic, null, 10).forEach(r -> r.fires().forEach(f -> kinds.add(f.kind().name())));
            long jobs = schedules.list(topic, null, 10).stream().flatMap(r -> r.fires().stream())
                    .filter(f -> f.jobId() != null).count();
            assertThat(direct.store().stats(topic).scheduled()).as(kinds.toString()).isEqualTo(jobs);
            assertThat(jobs).isBetween(1L, 3L);
        }
    }

    /** The schedule's one fire that is not an on-time one (the misfire policy's answer), or null while there is none. */
    private static Fire catchUp(ScheduleStore schedules, String topic, String name) {
        List<Fire> others = schedules.get(topic, name).orElseThrow().fires().stream()
                .filter(f -> f.kind() != Fire.Kind.SCHEDULED).toList();
        assertThat(others).as("one catch-up for all the missed fires").hasSizeLessThanOrEqualTo(1);
        return others.isEmpty() ? null : others.get(0);
    }
}
