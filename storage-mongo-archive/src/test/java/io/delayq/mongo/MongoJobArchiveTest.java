package io.delayq.mongo;

import io.delayq.core.Attempt;
import io.delayq.core.Callback;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import com.mongodb.client.model.Updates;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureSignature;
import io.delayq.mongo.migration.V1ArchiveCollections;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.delayq.mongo.ArchiveFixture.deadJob;
import static io.delayq.mongo.ArchiveFixture.entry;
import static io.delayq.core.testing.ArchiveFixtures.failedJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only the Mongo archive does: its documents as stored, its dashboard indexes, the signature backfill. What every archive promises (idempotent writes, lives,
 * replays, listings, purges, retention, outages) is {@link MongoJobArchiveContractTest}.
 */
class MongoJobArchiveTest {
    @TempDir
    static Path dataDir;

    private static ArchiveFixture fixture;
    private static MongoJobArchive archive;

    @BeforeAll
    static void start() {
        fixture = ArchiveFixture.start(dataDir);
        archive = fixture.archive;
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void succeededJobsGoToCompletedWithAnExpiry() {
        String topic = newTopic();
        Job dead = deadJob(topic, "a", 1_000, 5_000);
        Job done = new Job(topic, "a", "{}", 8_000, JobState.SUCCEEDED, 1, 3, null, null, null, false,
                dead.delivery(), 7_000, 9_000L, null, List.of(new Attempt(1, 9_000, null, 200)));
        archive.write(List.of(entry(dead), entry(done), entry(done)));

        assertThat(archive.find(new JobRef(topic, "a"))).contains(done);
        Document doc = fixture.database.getCollection(V1ArchiveCollections.COMPLETED)
                .find(new Document("topic", topic)).first();
        assertThat(doc.getDate("expireAt").getTime()).isEqualTo(9_000 + 7L * 24 * 3600 * 1000);
        assertThat(archive.find(new JobRef(topic, UUID.randomUUID().toString()))).isEmpty();
    }

    /** The fields the dashboard queries are written with the letter: signature, last status, the payload parsed. */
    @Test
    void aDeadLetterCarriesItsSignatureStatusAndQueryablePayload() {
        String topic = newTopic();
        Job job = failedJob(topic, "sig", 1_000, 5_000, "https://API.example.com:8443/x", 503, "busy for 20 ms",
                "{\"order\":{\"id\":42,\"n\":1.50,\"tags\":[1],\"$weird\":\"x\",\"a.b\":1},\"big\":12345678901234567890}");
        archive.write(List.of(entry(job)));

        Document doc = deadLetters().find(new Document("_id", DeadLetter.keyOf(job))).first();
        FailureSignature signature = FailureSignature.of(job);
        assertThat(doc.get("signature", Document.class)).isEqualTo(new Document("id", signature.id())
                .append("kind", "HTTP 503").append("message", "busy for # ms").append("host", "api.example.com:8443"));
        assertThat(doc.getInteger("httpStatus")).isEqualTo(503);
        assertThat(doc.get("payloadDoc", Document.class).toJson()).as("arrays and unnameable keys left out")
                .isEqualTo(new Document("order", new Document("id", 42L).append("n", 1.5))
                        .append("big", 12345678901234567890d).toJson());
        archive.write(List.of(entry(failedJob(topic, "list", 1_000, 5_000, "http://h/", null, "refused", "[1]"))));
        Document list = deadLetters().find(new Document("jobId", "list")).first();
        assertThat(list.get("payloadDoc")).isNull();
        assertThat(list.get("httpStatus")).isNull();
    }

    @Test
    void theDashboardsIndexesExist() {
        List<String> names = deadLetters().listIndexes().map(d -> d.getString("name")).into(new ArrayList<>());
        assertThat(names).contains("signature_deadAt_id", "host_deadAt_id", "httpStatus_deadAt_id", "jobId_deadAt",
                "payloadDoc_wildcard");
    }

    /** The notice sender's index holds pending notices only: partial on the state its query names. */
    @Test
    void thePendingNoticesIndexIsPartial() {
        Document index = deadLetters().listIndexes().into(new ArrayList<>()).stream()
                .filter(d -> "pendingNotices_due".equals(d.getString("name"))).findFirst().orElseThrow();
        assertThat(index.get("key", Document.class))
                .isEqualTo(new Document("notice.nextAttemptAt", 1).append("_id", 1));
        assertThat(index.get("partialFilterExpression", Document.class))
                .isEqualTo(new Document("notice.state", "PENDING"));
    }

    /**
     * The job's own notice target is in the stored job; the notice is a sub-document with dates, its absent parts left
     * out, replaced whole by each record; a purge leaves none on the tombstone.
     */
    @Test
    void aDeadNoticeIsStoredBesideTheJobAndNotKeptByItsTombstone() {
        String topic = newTopic();
        Job job = deadJob(topic, "n", 1_000, 5_000)
                .withOnDead(new Callback("https://ops.example.test/dead", Map.of("X-Team", "billing")));
        archive.write(List.of(entry(job)));
        String key = DeadLetter.keyOf(job);

        Document doc = deadLetters().find(new Document("_id", key)).first();
        assertThat(doc.get("job", Document.class).get("onDead")).isEqualTo(new Document("url",
                "https://ops.example.test/dead").append("headers", new Document("X-Team", "billing")));
        assertThat(doc.get("notice")).isEqualTo(new Document("state", "PENDING").append("attempts", 0)
                .append("nextAttemptAt", new Date(5_000)));

        DeadNotice claimed = DeadNotice.pending(5_000).claimed(65_000);
        assertThat(archive.recordNotice(key, 0, claimed)).isTrue();
        assertThat(archive.recordNotice(key, 1, claimed.failed("HTTP 502 from notice target", 502, 70_000))).isTrue();
        assertThat(deadLetters().find(new Document("_id", key)).first().get("notice")).isEqualTo(
                new Document("state", "PENDING").append("attempts", 1).append("nextAttemptAt", new Date(70_000))
                        .append("lastError", "HTTP 502 from notice target").append("lastStatus", 502));
        assertThat(archive.recordNotice(key, 1, claimed.delivered(71_000))).isTrue();
        assertThat(deadLetters().find(new Document("_id", key)).first().get("notice")).isEqualTo(
                new Document("state", "DELIVERED").append("attempts", 1).append("nextAttemptAt", new Date(0))
                        .append("deliveredAt", new Date(71_000)));

        archive.purgeDeadLetters(job.ref());
        assertThat(deadLetters().find(new Document("_id", key)).first()).doesNotContainKey("notice");
    }

    /**
     * Letters written before signatures existed have none: no group nor dashboard filter finds them until the
     * start-up backfill computes their fields, once; an unreadable one is passed over, not retried forever.
     */
    @Test
    void lettersWrittenWithoutASignatureGetOneFromTheBackfill() {
        String topic = newTopic();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < SignatureBackfill.BATCH + 5; i++) { // more than a batch
            jobs.add(failedJob(topic, "old-" + i, 1_000 + i, 10_000 + i, "http://old.example.com/cb", 502,
                    "bad gateway after " + i + " ms", "{\"n\":" + i + "}"));
        }
        archive.write(jobs.stream().map(ArchiveFixture::entry).toList());
        deadLetters().updateMany(new Document("topic", topic), Updates.combine(Updates.unset("signature"),
                Updates.unset("httpStatus"), Updates.unset("payloadDoc")));
        deadLetters().insertOne(new Document("_id", topic + "/broken/1").append("topic", topic).append("jobId", "broken")
                .append("deadAt", new java.util.Date(1)).append("state", "DEAD").append("job", "not a job")
                .append("replayCount", 0).append("replays", List.of()));
        DeadLetterQuery byHost = DeadLetterQuery.topic(topic).withHost("old.example.com");
        assertThat(archive.countDeadLetters(byHost)).isZero();
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic), 10, 20_000)).isEmpty();

        assertThat(archive.signUnsignedDeadLetters()).isEqualTo(jobs.size());

        assertThat(archive.countDeadLetters(byHost)).isEqualTo(jobs.size());
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic).withPayload("n", "7"))).isEqualTo(1);
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic), 10, 20_000)).singleElement().satisfies(g -> {
            assertThat(g.signature()).isEqualTo(FailureSignature.of(jobs.get(0)));
            assertThat(g.count()).isEqualTo(jobs.size());
        });
        assertThat(archive.signUnsignedDeadLetters()).as("nothing left to do").isZero();
    }

    private static com.mongodb.client.MongoCollection<Document> deadLetters() {
        return fixture.database.getCollection(V1ArchiveCollections.DEAD_LETTERS);
    }
}
