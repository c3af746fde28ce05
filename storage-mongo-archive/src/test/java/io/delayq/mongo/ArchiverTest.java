package io.delayq.mongo;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.MongoClientSettings;
import com.mongodb.ConnectionString;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.archive.Archiver;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.testing.Await;
import io.delayq.core.testing.StoreFixtures;
import io.delayq.mongo.migration.Migrations;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.delayq.core.testing.StoreFixtures.killJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.core.testing.StoreFixtures.outboxEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** A real Redis store, the archiver, and the archive over a socket. */
class ArchiverTest {
    private static final Archiver.Settings FAST = new Archiver.Settings(100, Duration.ofMillis(50),
            Duration.ofMillis(50), Duration.ofMillis(200));

    @TempDir
    static Path dataDir;

    private static RedisJobStore store;
    private static ArchiveFixture fixture;

    @BeforeAll
    static void start() {
        store = RedisJobStore.connect(TestRedis.sharedUri());
        fixture = ArchiveFixture.start(dataDir.resolve("shared"));
    }

    @AfterAll
    static void stop() {
        fixture.close();
        store.close();
    }

    @Test
    void aJobThatDiesEndsInTheArchiveWithItsAttemptsAndLeavesTheOutbox() throws Exception {
        String topic = newTopic();
        var metrics = new MetricRegistry();
        var archiver = new Archiver(store, fixture.archive, metrics, FAST);
        archiver.start();
        try {
            JobRef ref = killJob(store, topic, "order-1", 3, 410);

            Await.until("the dead letter is archived", () -> fixture.archive.deadLetter(ref).isPresent());
            Await.until("the outbox entry is gone", () -> outboxEntries(store, topic) == 0);
        } finally {
            archiver.stop();
        }
        DeadLetter letter = fixture.archive.deadLetter(new JobRef(topic, "order-1")).orElseThrow();
        assertThat(letter.job().state()).isEqualTo(JobState.DEAD);
        assertThat(letter.job().payload()).isEqualTo("{\"id\":\"order-1\"}");
        assertThat(letter.job().attempts()).isEqualTo(3);
        assertThat(letter.job().history()).extracting(a -> a.number(), a -> a.httpStatus(), a -> a.error())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, 500, "HTTP 500 on attempt 1"),
                        org.assertj.core.groups.Tuple.tuple(2, 500, "HTTP 500 on attempt 2"),
                        org.assertj.core.groups.Tuple.tuple(3, 410, "HTTP 410 on attempt 3"));
        assertThat(letter.deadAt()).isEqualTo(letter.job().finishedAt());
        assertThat(metrics.meter(Archiver.ARCHIVED_METER).getCount()).isPositive();
        assertThat(metrics.getGauges()).containsKey(Archiver.BACKLOG_GAUGE);
    }

    @Test
    void succeededJobsOfTopicsThatOptInAreKeptInCompleted() {
        String topic = newTopic();
        store.putSettings(topic, new io.delayq.core.TopicSettings(null, null, null, null, null, true));
        store.enqueue(io.delayq.core.NewJob.delayed(topic, "ok-1", "{}", 0, 3));
        var lease = StoreFixtures.reserveOne(store, topic);
        assertThat(store.ack(List.of(io.delayq.core.LeaseRef.of(lease)))).containsExactly(io.delayq.core.StoreStatus.OK);
        var archiver = new Archiver(store, fixture.archive, new MetricRegistry(), FAST);
        while (archiver.drainOnce() > 0) {
            // drain
        }

        assertThat(outboxEntries(store, topic)).isZero();
        assertThat(fixture.archive.find(new JobRef(topic, "ok-1"))).get()
                .satisfies(j -> assertThat(j.state()).isEqualTo(JobState.SUCCEEDED));
        assertThat(fixture.archive.deadLetter(new JobRef(topic, "ok-1"))).isEmpty();
    }

    @Test
    void anEntryTheArchiveRefusesStaysInTheOutboxAndDoesNotHoldBackTheOthers() {
        String topic = newTopic();
        // Over MongoDB's 16 MiB document limit: refused for good, not an outage.
        String huge = "\"" + "x".repeat(17 * 1024 * 1024) + "\"";
        store.enqueue(io.delayq.core.NewJob.delayed(topic, "huge", huge, 0, 1));
        var lease = StoreFixtures.reserveOne(store, topic);
        store.nack(io.delayq.core.LeaseRef.of(lease), io.delayq.core.Failure.dead("too big to help", null));
        JobRef normal = killJob(store, topic, "normal", 1);
        var metrics = new MetricRegistry();
        var archiver = new Archiver(store, fixture.archive, metrics, FAST);
        try {
            while (archiver.drainOnce() > 0) {
                // drain all that can be drained
            }

            assertThat(fixture.archive.deadLetter(normal)).isPresent();
            assertThat(fixture.archive.deadLetter(new JobRef(topic, "huge"))).isEmpty();
            assertThat(outboxEntries(store, topic)).as("the refused entry is kept").isEqualTo(1);
            assertThat(metrics.meter(Archiver.REJECTED_METER).getCount()).isPositive();
        } finally {
            store.deleteOutbox(store.readOutbox(10_000).stream().filter(e -> e.job().topic().equals(topic)).toList());
        }
    }

    @Test
    void refusedEntriesAtTheHeadOfTheOutboxDoNotStallTheEntriesBehindThem() {
        String topic = newTopic();
        String huge = "\"" + "x".repeat(17 * 1024 * 1024) + "\"";
        for (String id : List.of("huge-1", "huge-2", "huge-3")) {
            store.enqueue(io.delayq.core.NewJob.delayed(topic, id, huge, 0, 1));
            var lease = StoreFixtures.reserveOne(store, topic);
            store.nack(io.delayq.core.LeaseRef.of(lease), io.delayq.core.Failure.dead("too big to help", null));
        }
        JobRef normal = killJob(store, topic, "behind", 1);
        // a batch smaller than the refused entries: without skipping them, every pass would read only those
        var archiver = new Archiver(store, fixture.archive, new MetricRegistry(),
                new Archiver.Settings(2, Duration.ofMillis(50), Duration.ofMillis(50), Duration.ofMillis(200)));
        try {
            for (int pass = 0; pass < 50 && fixture.archive.deadLetter(normal).isEmpty(); pass++) {
                archiver.drainOnce();
            }

            assertThat(fixture.archive.deadLetter(normal)).as("the entry behind the refused ones").isPresent();
            assertThat(outboxEntries(store, topic)).as("the refused entries are kept").isEqualTo(3);
            assertThat(archiver.healthCheck().execute().getMessage()).contains("3 entries the archive refuses");
        } finally {
            store.deleteOutbox(store.readOutbox(10_000).stream().filter(e -> e.job().topic().equals(topic)).toList());
        }
    }

    @Test
    void drainingTheSameEntryTwiceKeepsOneDeadLetter() {
        String topic = newTopic();
        JobRef ref = killJob(store, topic, "twice", 1);
        var entries = store.readOutbox(10_000).stream().filter(e -> e.job().topic().equals(topic)).toList();

        // As if the archiver died after writing but before deleting from the outbox.
        fixture.archive.write(entries);
        var archiver = new Archiver(store, fixture.archive, new MetricRegistry(), FAST);
        while (archiver.drainOnce() > 0) {
            // drain everything, including this entry, a second time
        }

        assertThat(outboxEntries(store, topic)).isZero();
        assertThat(fixture.archive.deadLetters(io.delayq.core.archive.DeadLetterQuery.topic(topic)).items())
                .singleElement().satisfies(d -> assertThat(d.ref()).isEqualTo(ref));
    }

    @Test
    void theEmbeddedArchiveKeepsEverythingAcrossARestart() {
        assumeFalse(ArchiveFixture.realMongo(), "restarts only the embedded server");
        Path dir = dataDir.resolve("restart");
        String topic = newTopic();
        EmbeddedMongo first = EmbeddedMongo.start(0, dir);
        int port = first.port();
        try (MongoClient client = MongoClients.create(first.uri())) {
            var db = client.getDatabase("delayq");
            Migrations.apply(db);
            var archive = new MongoJobArchive(db, Duration.ofDays(1), first::commit);
            archive.write(List.of(ArchiveFixture.entry(ArchiveFixture.deadJob(topic, "keep", 1_000, 2_000))));
            archive.recordReplay(topic + "/keep/1000", 0, new DeadLetter.Replay(1, 3_000, "keep:r1", null));
        }
        first.close();

        EmbeddedMongo second = EmbeddedMongo.start(port, dir);
        try (MongoClient client = MongoClients.create(second.uri())) {
            var db = client.getDatabase("delayq");
            assertThat(Migrations.apply(db)).isEmpty();
            var archive = new MongoJobArchive(db, Duration.ofDays(1), second::commit);
            DeadLetter letter = archive.deadLetter(new JobRef(topic, "keep")).orElseThrow();
            assertThat(letter.job().history()).hasSize(3);
            assertThat(letter.replays()).extracting(DeadLetter.Replay::newJobId).containsExactly("keep:r1");
        } finally {
            second.close();
        }
    }

    @Test
    void whileTheArchiveIsDownNothingIsLostAndTheBacklogDrainsWhenItReturns() throws Exception {
        assumeFalse(ArchiveFixture.realMongo(), "stops and restarts the embedded server");
        Path dir = dataDir.resolve("outage");
        String topic = newTopic();
        AtomicReference<EmbeddedMongo> server = new AtomicReference<>(EmbeddedMongo.start(0, dir));
        int port = server.get().port();
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(server.get().uri()))
                .applyToClusterSettings(b -> b.serverSelectionTimeout(300, TimeUnit.MILLISECONDS))
                .applyToSocketSettings(b -> b.connectTimeout(300, TimeUnit.MILLISECONDS))
                .build());
        var db = client.getDatabase("delayq");
        Migrations.apply(db);
        var archive = new MongoJobArchive(db, Duration.ofDays(1), () -> server.get().commit());
        var metrics = new MetricRegistry();
        var archiver = new Archiver(store, archive, metrics, FAST);
        archiver.start();
        try {
            JobRef before = killJob(store, topic, "before", 1);
            Await.until("the first dead letter is archived", () -> archive.deadLetter(before).isPresent());

            server.get().close();
            List<JobRef> during = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                during.add(killJob(store, topic, "during-" + i, 2));
            }
            Await.until("the archiver notices the outage", archiver::isFailing);
            assertThat(archiver.healthCheck().execute().isHealthy()).as("the archiver's health check").isFalse();
            assertThat(outboxEntries(store, topic)).isEqualTo(5);
            Await.sleep(400);
            assertThat(outboxEntries(store, topic)).as("kept while the archive is down").isEqualTo(5);
            @SuppressWarnings("unchecked")
            Gauge<Long> backlog = (Gauge<Long>) metrics.getGauges().get(Archiver.BACKLOG_GAUGE);
            assertThat(backlog.getValue()).isGreaterThanOrEqualTo(5);
            assertThat(metrics.meter(Archiver.FAILURES_METER).getCount()).isPositive();

            server.set(EmbeddedMongo.start(port, dir));
            Await.until("the backlog drains", () -> outboxEntries(store, topic) == 0);
            Await.until("the archiver recovers", () -> !archiver.isFailing());
            assertThat(archiver.healthCheck().execute().isHealthy()).isTrue();
            assertThat(archive.deadLetter(before)).isPresent();
            for (JobRef ref : during) {
                assertThat(archive.deadLetter(ref)).as(ref.toString()).isPresent()
                        .get().satisfies(d -> assertThat(d.job().history()).hasSize(2));
            }
        } finally {
            archiver.stop();
            client.close();
            server.get().close();
        }
    }
}
