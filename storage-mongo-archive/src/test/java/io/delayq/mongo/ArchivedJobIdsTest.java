package io.delayq.mongo;

import com.mongodb.MongoClientSettings;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import io.delayq.core.Attempt;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.archive.JobArchive;
import io.delayq.mongo.migration.V1ArchiveCollections;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.mongo.ArchiveFixture.deadJob;
import static io.delayq.mongo.ArchiveFixture.entry;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The directory of archived job ids on the embedded server: a find of a job the archive never held sends no query
 * of {@code dead_letters} or {@code completed} (which mongo-java-server answers by reading every document: it uses no
 * secondary index), only one equality on the directory's {@code _id}, which the server serves from its unique
 * {@code _id} index. The driver's own command
 * monitoring sees every command sent.
 */
class ArchivedJobIdsTest {
    @TempDir
    Path dataDir;

    private EmbeddedMongo embedded;
    private MongoClient client;
    private MongoDatabase database;
    /** Every find sent: its collection and filter (copied: the driver reuses the command's buffer afterwards). */
    private record Find(String collection, BsonDocument filter) {
    }

    private final List<Find> finds = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        embedded = EmbeddedMongo.start(0, dataDir);
        client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new com.mongodb.ConnectionString(embedded.uri()))
                .addCommandListener(new CommandListener() {
                    @Override
                    public void commandStarted(CommandStartedEvent event) {
                        if (event.getCommandName().equals("find")) {
                            BsonDocument command = event.getCommand();
                            finds.add(new Find(command.getString("find").getValue(),
                                    command.getDocument("filter", new BsonDocument()).clone()));
                        }
                    }
                })
                .build());
        database = client.getDatabase("dq-ids-" + UUID.randomUUID().toString().substring(0, 8));
        ArchiveMaintenance.migrate(database);
    }

    @AfterEach
    void stop() {
        client.close();
        embedded.close();
    }

    private MongoJobArchive newArchive(Duration completedRetention) {
        return new MongoJobArchive(database, completedRetention, MongoJobArchive.DEFAULT_TOMBSTONE_RETENTION,
                embedded::commit);
    }

    private static Job succeeded(String topic, String id, long finishedAt) {
        return new Job(topic, id, "{}", finishedAt - 10, JobState.SUCCEEDED, 1, 3, null, null, null, false,
                io.delayq.core.Delivery.PUSH, finishedAt - 20, finishedAt, null, List.of(new Attempt(1, finishedAt, null, 200)));
    }

    @Test
    void aJobTheArchiveNeverHeldIsNoSearch() {
        MongoJobArchive archive = newArchive(Duration.ofDays(7));
        archive.keepJobIdDirectory();
        String topic = newTopic();
        Job dead = deadJob(topic, "dead-1", 1_000, 5_000);
        Job done = succeeded(topic, "done-1", System.currentTimeMillis());
        archive.write(List.of(entry(dead), entry(done)));

        finds.clear();
        assertThat(archive.find(new JobRef(topic, "never-seen"))).isEmpty();
        assertThat(finds).as("one lookup of a unique key, no search").containsExactly(new Find(ArchivedJobIds.COLLECTION,
                new BsonDocument("_id", new BsonString(topic + "/never-seen"))));

        // the ids it holds are found as before, through the searches
        finds.clear();
        assertThat(archive.find(new JobRef(topic, "dead-1"))).contains(dead);
        assertThat(archive.find(new JobRef(topic, "done-1"))).contains(done);
        assertThat(finds).extracting(Find::collection)
                .contains(V1ArchiveCollections.DEAD_LETTERS, V1ArchiveCollections.COMPLETED);
    }

    /** Nothing is kept in memory: what another instance keeping the directory writes is found at once. */
    @Test
    void anotherWritersRecordsAreFoundAtOnce() {
        MongoJobArchive archive = newArchive(Duration.ofDays(7));
        archive.keepJobIdDirectory();
        MongoJobArchive other = newArchive(Duration.ofDays(7));
        other.keepJobIdDirectory();
        String topic = newTopic();
        Job done = succeeded(topic, "other", System.currentTimeMillis());
        assertThat(archive.find(new JobRef(topic, "other"))).isEmpty();
        other.write(List.of(entry(done)));
        assertThat(archive.find(new JobRef(topic, "other"))).contains(done);
    }

    @Test
    void recordsWrittenBeforeTheDirectoryAreListedOnceAtItsStart() {
        String topic = newTopic();
        Job dead = deadJob(topic, "old-dead", 1_000, 5_000);
        Job done = succeeded(topic, "old-done", System.currentTimeMillis());
        newArchive(Duration.ofDays(7)).write(List.of(entry(dead), entry(done))); // an archive without the directory

        MongoJobArchive archive = newArchive(Duration.ofDays(7));
        assertThat(archive.keepJobIdDirectory()).isEqualTo(2);
        assertThat(archive.find(new JobRef(topic, "old-dead"))).contains(dead);
        assertThat(archive.find(new JobRef(topic, "old-done"))).contains(done);
        assertThat(newArchive(Duration.ofDays(7)).keepJobIdDirectory()).as("the next start lists nothing again").isZero();
    }

    @Test
    void anIdWhoseCompletedRecordsExpiredLeavesTheDirectoryWithThem() {
        MongoJobArchive archive = newArchive(Duration.ofMinutes(1));
        archive.keepJobIdDirectory();
        String topic = newTopic();
        long finishedAt = System.currentTimeMillis();
        archive.write(List.of(entry(succeeded(topic, "short", finishedAt)), entry(deadJob(topic, "kept", 1_000, 5_000))));
        var ids = database.getCollection(ArchivedJobIds.COLLECTION);
        assertThat(ids.countDocuments(new org.bson.Document("_id", topic + "/short"))).isEqualTo(1);

        archive.expireCompleted(finishedAt + Duration.ofMinutes(2).toMillis());
        assertThat(ids.countDocuments(new org.bson.Document("_id", topic + "/short"))).isZero();
        assertThat(ids.countDocuments(new org.bson.Document("_id", topic + "/kept")))
                .as("a dead letter's id stays listed: letters do not expire").isEqualTo(1);
        // gone from the directory: one lookup of the key, no search
        finds.clear();
        assertThat(archive.find(new JobRef(topic, "short"))).isEmpty();
        assertThat(finds).containsExactly(new Find(ArchivedJobIds.COLLECTION,
                new BsonDocument("_id", new BsonString(topic + "/short"))));
    }

    @Test
    void aDeadLetterKeepsItsIdListedWhenACompletedRecordOfTheSameIdComesLater() {
        MongoJobArchive archive = newArchive(Duration.ofMinutes(1));
        archive.keepJobIdDirectory();
        String topic = newTopic();
        Job dead = deadJob(topic, "x", 1_000, 5_000);
        long finishedAt = System.currentTimeMillis();
        archive.write(List.of(entry(dead)));
        archive.write(List.of(entry(succeeded(topic, "x", finishedAt)))); // another life of the id, succeeded

        archive.expireCompleted(finishedAt + Duration.ofMinutes(2).toMillis());
        assertThat(archive.find(new JobRef(topic, "x"))).contains(dead);
    }

    /** The factory keeps the directory for the embedded server it starts. */
    @Test
    void theFactoryKeepsItForItsEmbeddedServer() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        var factory = new MongoJobArchiveFactory();
        factory.getEmbedded().setPort(port);
        factory.getEmbedded().setPersistent(false);
        var lifecycle = new io.dropwizard.lifecycle.setup.LifecycleEnvironment(new com.codahale.metrics.MetricRegistry());
        JobArchive archive = factory.build(lifecycle, new com.codahale.metrics.health.HealthCheckRegistry(),
                new com.codahale.metrics.MetricRegistry());
        try (MongoClient other = MongoClients.create("mongodb://127.0.0.1:" + port)) {
            String topic = newTopic();
            archive.write(List.of(entry(deadJob(topic, "f", 1_000, 5_000))));
            var ids = other.getDatabase(factory.getDatabase()).getCollection(ArchivedJobIds.COLLECTION);
            assertThat(ids.countDocuments(new org.bson.Document("_id", topic + "/f"))).isEqualTo(1);
            assertThat(ids.countDocuments(new org.bson.Document("_id", ArchivedJobIds.FILLED_MARKER))).isEqualTo(1);
            assertThat(archive.find(new JobRef(topic, "f"))).isPresent();
        } finally {
            for (var managed : lifecycle.getManagedObjects()) {
                managed.stop();
            }
        }
    }
}
