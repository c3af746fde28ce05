package io.delayq.mongo;

import io.delayq.core.JobArchiveContract;
import io.delayq.core.JobStore;
import io.delayq.core.archive.JobArchive;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The archive contract against the Mongo archive over the real driver: the embedded wire-protocol server on a free
 * port (or a real mongod when {@code MONGO_URI} is set), one database for the class.
 */
class MongoJobArchiveContractTest extends JobArchiveContract {
    @TempDir
    static Path dataDir;

    private static ArchiveFixture fixture;
    private static final List<MongoConnection> unreachable = new ArrayList<>();

    @BeforeAll
    static void start() {
        fixture = ArchiveFixture.start(dataDir);
    }

    @AfterAll
    static void stop() {
        unreachable.forEach(MongoConnection::close);
        fixture.close();
    }

    @Override
    protected JobArchive newArchive() {
        return newArchiveWithRetention(Duration.ofDays(7), MongoJobArchive.DEFAULT_TOMBSTONE_RETENTION);
    }

    @Override
    protected JobArchive newArchiveWithRetention(Duration completedRetention, Duration tombstoneRetention) {
        return new MongoJobArchive(fixture.database, completedRetention, tombstoneRetention,
                fixture.embedded == null ? null : fixture.embedded::commit);
    }

    /** What the factory's timer does on the embedded server, and MongoDB's TTL monitor on its own. */
    @Override
    protected void expire(JobArchive archive, long nowMs) {
        MongoJobArchive mongo = (MongoJobArchive) archive;
        mongo.expireCompleted(nowMs);
        mongo.expireTombstones(nowMs);
    }

    /** A closed port, through the factory's own client settings, with a short server selection timeout. */
    @Override
    protected JobArchive newUnreachableArchive() {
        var factory = new MongoJobArchiveFactory();
        factory.setUri("mongodb://127.0.0.1:1/?connectTimeoutMS=300");
        factory.setServerSelectionTimeout(io.dropwizard.util.Duration.milliseconds(300));
        MongoConnection connection = factory.connect();
        unreachable.add(connection);
        return new MongoJobArchive(connection.database(), Duration.ofDays(7));
    }

    /** The store the module's other tests use: Redis, shared through TestRedis. */
    @Override
    protected JobStore newStore() {
        return RedisJobStore.connect(TestRedis.sharedUri());
    }
}
