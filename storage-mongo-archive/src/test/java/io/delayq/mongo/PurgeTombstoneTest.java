package io.delayq.mongo;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.OutboxEntry;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.Archiver;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.archive.ReplayRequest;
import io.delayq.mongo.migration.V1ArchiveCollections;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.bson.Document;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.delayq.mongo.ArchiveFixture.deadJob;
import static io.delayq.mongo.ArchiveFixture.entry;
import static io.delayq.core.testing.StoreFixtures.killJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.core.testing.StoreFixtures.outboxEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 12 #7: a purge must stay a purge while other instances still hold the purged dead letter's outbox entry.
 * Two archivers on one store: instance B reads the outbox, instance A archives and deletes the same entry, an operator
 * purges the dead letter, and only then B writes what it read.
 *
 * <p>What a purge promises of any archive (tombstones against late writes, by job and by filter, their retention, a
 * later life of the id) is in {@link MongoJobArchiveContractTest}; here are the races through a real store's outbox,
 * archiver and replayer, and the Mongo tombstone's document.
 */
class PurgeTombstoneTest {
    @TempDir
    static Path dataDir;

    private static RedisJobStore store;
    private static ArchiveFixture fixture;
    private static Archiver instanceA;

    @BeforeAll
    static void start() {
        store = RedisJobStore.connect(TestRedis.sharedUri());
        fixture = ArchiveFixture.start(dataDir);
        instanceA = new Archiver(store, fixture.archive, new MetricRegistry());
    }

    @AfterAll
    static void stop() {
        fixture.close();
        store.close();
    }

    /** What instance B's archiver read from the outbox: the entries of this topic. */
    private static List<OutboxEntry> readByInstanceB(String topic) {
        return store.readOutbox(10_000).stream().filter(e -> e.job().topic().equals(topic)).toList();
    }

    private static void drain(Archiver archiver) {
        while (archiver.drainOnce() > 0) {
            // move everything dead so far into the archive
        }
    }

    @Test
    void aPurgeBetweenAnotherInstancesOutboxReadAndItsWriteStaysPurged() {
        String topic = newTopic();
        JobRef ref = killJob(store, topic, "gone", 2);
        List<OutboxEntry> readByB = readByInstanceB(topic);
        assertThat(readByB).hasSize(1);
        drain(instanceA);
        DeadLetter beforePurge = fixture.archive.deadLetter(ref).orElseThrow();

        assertThat(fixture.archive.purgeDeadLetters(ref)).isEqualTo(1);
        fixture.archive.write(readByB); // B's upsert of what it read before the purge: accepted, and a no-op
        store.deleteOutbox(readByB);

        assertThat(fixture.archive.deadLetter(ref)).isEmpty();
        assertThat(fixture.archive.deadLetter(beforePurge.key())).isEmpty();
        assertThat(fixture.archive.deadLetters(DeadLetterQuery.topic(topic)).items()).isEmpty();
        assertThat(fixture.archive.find(ref)).isEmpty();
        assertThat(outboxEntries(store, topic)).isZero();
        // Nor can it be replayed: not by its job id, and not from a listing read before the purge.
        DeadLetterReplayer replayer = new DeadLetterReplayer(store, fixture.archive, JobRules.defaults(), 0);
        assertThatThrownBy(() -> replayer.replay(ref, ReplayRequest.now()))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.status()).isEqualTo(StoreStatus.NOT_FOUND));
        assertThatThrownBy(() -> replayer.replay(beforePurge, ReplayRequest.now()))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.status()).isEqualTo(StoreStatus.NOT_FOUND))
                .hasMessageContaining("purged");
        assertThat(store.find(new JobRef(topic, DeadLetterReplayer.replayId(beforePurge, 1)))).isEmpty();
    }

    /**
     * The other way an entry outlives its write: an archiver wrote it and died (or lost the store) before deleting
     * it from the outbox. The next pass after a purge writes it again; it stays purged, and leaves the outbox as
     * archived rather than being set aside as refused.
     */
    @Test
    void anEntryLeftInTheOutboxAfterItsWriteIsDrainedWithoutBringingBackItsPurgedLetter() {
        String topic = newTopic();
        JobRef ref = killJob(store, topic, "crashed", 2);
        fixture.archive.write(readByInstanceB(topic)); // written, never deleted: the archiver died here
        assertThat(fixture.archive.purgeDeadLetters(ref)).isEqualTo(1);
        MetricRegistry metrics = new MetricRegistry();
        Archiver restarted = new Archiver(store, fixture.archive, metrics);

        drain(restarted);

        assertThat(outboxEntries(store, topic)).isZero();
        assertThat(metrics.meter(Archiver.REJECTED_METER).getCount()).isZero();
        assertThat(restarted.isFailing()).isFalse();
        assertThat(fixture.archive.deadLetter(ref)).isEmpty();
    }

    /** A tombstone keeps the key and when, nothing of the job, and expires after the archive's retention. */
    @Test
    void aTombstoneKeepsOnlyTheKeyAndExpiresAfterItsRetention() {
        String topic = newTopic();
        Duration retention = Duration.ofHours(2);
        var archive = new MongoJobArchive(fixture.database, Duration.ofDays(1), retention,
                fixture.embedded == null ? null : fixture.embedded::commit);
        Job job = deadJob(topic, "t", 1_000, 5_000);
        archive.write(List.of(entry(job)));
        long live = archive.deadLetterCount();
        long before = System.currentTimeMillis();

        archive.purgeDeadLetters(job.ref());

        Document tombstone = fixture.database.getCollection(V1ArchiveCollections.DEAD_LETTERS)
                .find(new Document("_id", DeadLetter.keyOf(job))).first();
        assertThat(tombstone).isNotNull();
        assertThat(tombstone.keySet()).containsExactlyInAnyOrder("_id", "purgedAt", "expireAt");
        long purgedAt = tombstone.getDate("purgedAt").getTime();
        assertThat(purgedAt).isBetween(before, System.currentTimeMillis());
        assertThat(tombstone.getDate("expireAt").getTime()).isEqualTo(purgedAt + retention.toMillis());
        assertThat(archive.recordReplay(DeadLetter.keyOf(job), 0, new DeadLetter.Replay(1, 6_000, "t:x:r1", null)))
                .isFalse();
        assertThat(archive.deadLetterCount()).isEqualTo(live - 1);

        assertThat(archive.expireTombstones(purgedAt + retention.toMillis() - 1)).isZero();
        assertThat(archive.expireTombstones(purgedAt + retention.toMillis() + 1)).isEqualTo(1);
        // Past its retention the purge no longer guards the key: an entry still around then would be archived again.
        archive.write(List.of(entry(job)));
        assertThat(archive.deadLetter(DeadLetter.keyOf(job))).isPresent();
    }
}
