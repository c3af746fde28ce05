package io.delayq.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import io.delayq.core.Attempt;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.OutboxEntry;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A migrated archive database for one test class, reached by the real driver over a socket: a real mongod when
 * {@code MONGO_URI} is set, else an embedded server on a free port with its data under {@code dataDir}.
 */
final class ArchiveFixture implements AutoCloseable {
    final EmbeddedMongo embedded;
    final MongoClient client;
    final MongoDatabase database;
    final MongoJobArchive archive;

    private ArchiveFixture(EmbeddedMongo embedded, MongoClient client, MongoDatabase database) {
        this.embedded = embedded;
        this.client = client;
        this.database = database;
        ArchiveMaintenance.migrate(database);
        this.archive = new MongoJobArchive(database, Duration.ofDays(7), embedded == null ? null : embedded::commit);
    }

    static ArchiveFixture start(Path dataDir) {
        String uri = System.getenv("MONGO_URI");
        EmbeddedMongo embedded = null;
        if (uri == null || uri.isBlank()) {
            embedded = EmbeddedMongo.start(0, dataDir);
            uri = embedded.uri();
        }
        MongoClient client = MongoClients.create(uri);
        return new ArchiveFixture(embedded, client,
                client.getDatabase("dq-test-" + UUID.randomUUID().toString().substring(0, 8)));
    }

    static boolean realMongo() {
        String uri = System.getenv("MONGO_URI");
        return uri != null && !uri.isBlank();
    }

    /** A dead job as the store would hand it over, with its attempt history. */
    static Job deadJob(String topic, String id, long createdAt, long deadAt) {
        List<Attempt> history = List.of(
                new Attempt(1, deadAt - 200, "HTTP 500 from callback", 500),
                new Attempt(2, deadAt - 100, "connection refused", null),
                new Attempt(3, deadAt, "HTTP 503 from callback", 503));
        return new Job(topic, id, "{\"order\":42,\"n\":1.50,\"$weird\":\"kept\"}", deadAt - 300, JobState.DEAD, 3, 3,
                null, Callback.of("http://127.0.0.1:9/hook"), 5_000L, false, Delivery.PUSH, createdAt, deadAt,
                "HTTP 503 from callback", history);
    }

    static OutboxEntry entry(Job job) {
        return new OutboxEntry("0-" + job.createdAt(), job);
    }

    @Override
    public void close() {
        if (embedded == null) {
            database.drop();
        }
        client.close();
        if (embedded != null) {
            embedded.close();
        }
    }
}
