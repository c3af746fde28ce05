package io.delayq.mongo;

import io.delayq.core.Attempt;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.migrations.mongo.V1ArchiveCollections;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import static io.delayq.mongo.ArchiveFixture.deadJob;
import static io.delayq.mongo.ArchiveFixture.entry;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only the Mongo archive does: its documents as stored. What every archive promises (idempotent writes, lives,
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
}
