package io.delayq.mongo;

import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.Page;
import io.delayq.migrations.mongo.V1ArchiveCollections;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static io.delayq.mongo.ArchiveFixture.deadJob;
import static io.delayq.mongo.ArchiveFixture.entry;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    private static long count(String topic) {
        return fixture.database.getCollection(V1ArchiveCollections.DEAD_LETTERS).countDocuments(new Document("topic", topic));
    }

    @Test
    void writingTheSameEntryTwiceLeavesOneDocument() {
        String topic = newTopic();
        Job job = deadJob(topic, "a", 1_000, 5_000);

        archive.write(List.of(entry(job)));
        archive.write(List.of(entry(job), entry(job)));

        assertThat(count(topic)).isEqualTo(1);
    }

    @Test
    void aDeadLetterKeepsTheWholeJobAndEveryAttempt() {
        String topic = newTopic();
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));

        DeadLetter letter = archive.deadLetter(job.ref()).orElseThrow();

        assertThat(letter.job()).isEqualTo(job);
        assertThat(letter.job().payload()).isEqualTo("{\"order\":42,\"n\":1.50,\"$weird\":\"kept\"}");
        assertThat(letter.job().history()).extracting(a -> a.error(), a -> a.httpStatus())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("HTTP 500 from callback", 500),
                        org.assertj.core.groups.Tuple.tuple("connection refused", null),
                        org.assertj.core.groups.Tuple.tuple("HTTP 503 from callback", 503));
        assertThat(letter.deadAt()).isEqualTo(5_000);
        assertThat(letter.key()).isEqualTo(topic + "/a/1000");
        assertThat(letter.replayCount()).isZero();
        assertThat(archive.find(job.ref())).contains(job);
    }

    @Test
    void backoffsCallbackHeadersAndBroadcastSurviveTheRoundTrip() {
        String topic = newTopic();
        Job base = deadJob(topic, "opts", 1_000, 5_000);
        Job job = new Job(topic, "opts", "[1,\"two\",{\"3\":null}]", base.runAt(), JobState.DEAD, 3, 3,
                new io.delayq.core.Backoff.Exponential(io.dropwizard.util.Duration.milliseconds(250), 1.5,
                        io.dropwizard.util.Duration.minutes(5), 0.1),
                new io.delayq.core.Callback("https://example.test/hook", java.util.Map.of("X-Api-Key", "k")),
                2_500L, true, io.delayq.core.Delivery.PUSH, 1_000, 5_000L, "boom", base.history());
        Job scheduleJob = new Job(topic, "sched", "\"just a string\"", 4_000, JobState.DEAD, 1, 1,
                new io.delayq.core.Backoff.Schedule(List.of(io.dropwizard.util.Duration.seconds(15),
                        io.dropwizard.util.Duration.minutes(3))),
                null, null, false, io.delayq.core.Delivery.PULL, 2_000, 6_000L, null, List.of());

        archive.write(List.of(entry(job), entry(scheduleJob)));

        assertThat(archive.deadLetter(job.ref()).orElseThrow().job()).isEqualTo(job);
        assertThat(archive.deadLetter(scheduleJob.ref()).orElseThrow().job()).isEqualTo(scheduleJob);
    }

    @Test
    void theSameIdDyingInTwoLivesGivesTwoDeadLettersAndTheNewestIsShown() {
        String topic = newTopic();
        archive.write(List.of(entry(deadJob(topic, "a", 1_000, 5_000)), entry(deadJob(topic, "a", 9_000, 12_000))));

        assertThat(count(topic)).isEqualTo(2);
        assertThat(archive.deadLetter(new JobRef(topic, "a")).orElseThrow().deadAt()).isEqualTo(12_000);
    }

    @Test
    void rewritingAnEntryAfterAReplayKeepsTheReplay() {
        String topic = newTopic();
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));
        String key = DeadLetter.keyOf(job);
        assertThat(archive.recordReplay(key, 0, new DeadLetter.Replay(1, 6_000, "a:r1", null))).isTrue();

        archive.write(List.of(entry(job)));

        DeadLetter letter = archive.deadLetter(key).orElseThrow();
        assertThat(letter.replayCount()).isEqualTo(1);
        assertThat(letter.replays()).containsExactly(new DeadLetter.Replay(1, 6_000, "a:r1", null));
    }

    @Test
    void aReplayIsRecordedOnlyAgainstTheExpectedCount() {
        String topic = newTopic();
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));
        String key = DeadLetter.keyOf(job);

        assertThat(archive.recordReplay(key, 0, new DeadLetter.Replay(1, 6_000, "a:r1", "k1"))).isTrue();
        assertThat(archive.recordReplay(key, 0, new DeadLetter.Replay(1, 6_001, "a:r1", "k2"))).isFalse();
        assertThat(archive.recordReplay("nope", 0, new DeadLetter.Replay(1, 6_001, "a:r1", null))).isFalse();

        assertThat(archive.deadLetter(key).orElseThrow().replays()).extracting(DeadLetter.Replay::requestKey)
                .containsExactly("k1");
    }

    @Test
    void listingIsNewestFirstAndFiltersByTopicTimeAndReplayed() {
        String topic = newTopic();
        String other = newTopic();
        List<io.delayq.core.OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            entries.add(entry(deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 1_000)));
        }
        entries.add(entry(deadJob(other, "x", 1_000, 12_500)));
        archive.write(entries);
        archive.recordReplay(topic + "/j4/1004", 0, new DeadLetter.Replay(1, 20_000, "j4:r1", null));

        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("j4", "j3", "j2", "j1", "j0");
        assertThat(ids(archive.deadLetters(new DeadLetterQuery(topic, 11_000L, 13_000L, null, 50, null))))
                .containsExactly("j2", "j1");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withReplayed(false))))
                .containsExactly("j3", "j2", "j1", "j0");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withReplayed(true)))).containsExactly("j4");
    }

    @Test
    void pagesStayStableWhileNewDeadLettersArrive() {
        String topic = newTopic();
        List<io.delayq.core.OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            // Pairs share a deadAt, so the cursor's tie-break on the key matters.
            entries.add(entry(deadJob(topic, "old" + i, 1_000 + i, 100_000 + (i / 2) * 1_000)));
        }
        archive.write(entries);

        List<String> seen = new ArrayList<>();
        Page<DeadLetter> page = archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(7));
        seen.addAll(ids(page));
        int arrivals = 0;
        while (page.hasNext()) {
            // Newer dead letters, and one dying at exactly the boundary's time, arrive between pages.
            DeadLetter last = page.items().get(page.items().size() - 1);
            archive.write(List.of(entry(deadJob(topic, "new" + arrivals, 50_000 + arrivals, 500_000 + arrivals)),
                    entry(deadJob(topic, "tie" + arrivals, 70_000 + arrivals, last.deadAt()))));
            arrivals++;
            page = archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(7).withCursor(page.nextCursor()));
            seen.addAll(ids(page));
        }

        List<String> old = seen.stream().filter(id -> id.startsWith("old")).toList();
        assertThat(old).hasSize(25).doesNotHaveDuplicates();
        assertThat(seen).noneMatch(id -> id.startsWith("new"));
        assertThat(seen).doesNotHaveDuplicates();
    }

    @Test
    void aCursorThatWasNotHandedOutIsRefused() {
        assertThatThrownBy(() -> archive.deadLetters(DeadLetterQuery.all().withCursor("not a cursor")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nextCursor");
    }

    @Test
    void purgeOneJobAndPurgeByFilter() {
        String topic = newTopic();
        List<io.delayq.core.OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            entries.add(entry(deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 1_000)));
        }
        entries.add(entry(deadJob(topic, "j0", 50_000, 60_000)));
        archive.write(entries);

        assertThat(archive.purgeDeadLetters(new JobRef(topic, "j0"))).isEqualTo(2);
        assertThat(archive.deadLetter(new JobRef(topic, "j0"))).isEmpty();
        assertThat(archive.purgeDeadLetters(new JobRef(topic, "j0"))).isZero();

        assertThat(archive.purgeDeadLetters(new DeadLetterQuery(topic, null, 13_000L, null, 1, null))).isEqualTo(2);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("j5", "j4", "j3");
    }

    @Test
    void succeededJobsGoToCompletedWithAnExpiry() {
        String topic = newTopic();
        Job dead = deadJob(topic, "a", 1_000, 5_000);
        Job done = new Job(topic, "a", "{}", 8_000, JobState.SUCCEEDED, 1, 3, null, null, null, false,
                dead.delivery(), 7_000, 9_000L, null, List.of(new io.delayq.core.Attempt(1, 9_000, null, 200)));
        archive.write(List.of(entry(dead), entry(done), entry(done)));

        assertThat(archive.find(new JobRef(topic, "a"))).contains(done);
        Document doc = fixture.database.getCollection(V1ArchiveCollections.COMPLETED)
                .find(new Document("topic", topic)).first();
        assertThat(doc.getDate("expireAt").getTime()).isEqualTo(9_000 + 7L * 24 * 3600 * 1000);
        assertThat(archive.find(new JobRef(topic, UUID.randomUUID().toString()))).isEmpty();
    }

    @Test
    void expiredCompletedJobsAreRemoved() {
        String topic = newTopic();
        Job done = new Job(topic, "a", "{}", 8_000, JobState.SUCCEEDED, 1, 3, null, null, null, false,
                io.delayq.core.Delivery.PULL, 7_000, 9_000L, null, List.of());
        archive.write(List.of(entry(done)));

        archive.expireCompleted(9_000 + 8L * 24 * 3600 * 1000);

        assertThat(archive.find(done.ref())).isEmpty();
    }

    private static List<String> ids(Page<DeadLetter> page) {
        return page.items().stream().map(d -> d.job().id()).toList();
    }
}
