package io.delayq.mongo;

import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.BulkOperation;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only the Mongo operator log does: its indexes (the reads' and the TTL ones) and the documents' {@code expireAt}.
 * What every operator log promises is {@link MongoOperatorLogContractTest}.
 */
class MongoOperatorLogTest {
    private static final long DAY = Duration.ofDays(1).toMillis();

    @TempDir
    static Path dataDir;

    private static ArchiveFixture fixture;

    @BeforeAll
    static void start() {
        fixture = ArchiveFixture.start(dataDir);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void theFirstCallCreatesTheIndexesOfTheReadsAndTheTtlIndexes() {
        fixture.archive.operatorLog().operations(1);

        Map<String, Document> operations = indexes(MongoOperatorLog.OPERATIONS);
        assertThat(operations.get("createdAt_id").get("key", Document.class))
                .isEqualTo(new Document("createdAt", -1).append("_id", -1));
        assertTtl(operations.get("expireAt_ttl"));

        Map<String, Document> audit = indexes(MongoOperatorLog.AUDIT);
        assertThat(audit.get("at_id").get("key", Document.class)).isEqualTo(new Document("at", -1).append("_id", -1));
        assertTtl(audit.get("expireAt_ttl"));
    }

    @Test
    void recordsExpireThirtyDaysAfterTheirLastChangeOrAfterALongerTombstoneRetention() {
        String id = UUID.randomUUID().toString();
        BulkOperation op = new BulkOperation(id, BulkOperation.Kind.REPLAY, "topic=t", BulkOperation.State.RUNNING, 3,
                0, 0, "alice", 1_000, 2_000, false, null);
        MongoOperatorLog log = fixture.archive.operatorLog();

        log.save(op);
        assertThat(expireAt(MongoOperatorLog.OPERATIONS, id)).isEqualTo(2_000 + 30 * DAY);
        log.report(op.progressed(1, 0, null, 5_000));
        assertThat(expireAt(MongoOperatorLog.OPERATIONS, id)).as("from the last report").isEqualTo(5_000 + 30 * DAY);

        MongoOperatorLog longer = new MongoJobArchive(fixture.database, Duration.ofDays(7), Duration.ofDays(60),
                fixture.embedded == null ? null : fixture.embedded::commit).operatorLog();
        String entry = UUID.randomUUID().toString();
        longer.audit(new AuditEntry(entry, 7_000, "alice", "job.cancel", "t/1", 1, null));
        assertThat(expireAt(MongoOperatorLog.AUDIT, entry)).isEqualTo(7_000 + 60 * DAY);
    }

    private static void assertTtl(Document index) {
        assertThat(index).as("TTL index").isNotNull();
        assertThat(index.get("key", Document.class)).isEqualTo(new Document("expireAt", 1));
        assertThat(((Number) index.get("expireAfterSeconds")).longValue()).isZero();
    }

    private static Map<String, Document> indexes(String collection) {
        return fixture.database.getCollection(collection).listIndexes().into(new ArrayList<>()).stream()
                .collect(Collectors.toMap(d -> d.getString("name"), d -> d));
    }

    private static long expireAt(String collection, String id) {
        return fixture.database.getCollection(collection).find(new Document("_id", id)).first().getDate("expireAt")
                .getTime();
    }
}
