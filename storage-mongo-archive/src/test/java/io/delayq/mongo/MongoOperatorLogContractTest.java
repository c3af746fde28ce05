package io.delayq.mongo;

import io.delayq.core.OperatorLogContract;
import io.delayq.core.archive.JobArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator log contract against the Mongo archive over the real driver: the embedded wire-protocol server on a
 * free port (or a real mongod when {@code MONGO_URI} is set), one database for the class.
 */
class MongoOperatorLogContractTest extends OperatorLogContract {
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
        return new MongoJobArchive(fixture.database, Duration.ofDays(7), MongoJobArchive.DEFAULT_TOMBSTONE_RETENTION,
                fixture.embedded == null ? null : fixture.embedded::commit);
    }

    /** What MongoDB's TTL monitor does on its own (the embedded server has none). */
    @Override
    protected void expire(JobArchive archive, long nowMs) {
        ((MongoJobArchive) archive).operatorLog().expire(nowMs);
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
}
