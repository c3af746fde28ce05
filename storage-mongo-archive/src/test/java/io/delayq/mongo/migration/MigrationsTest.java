package io.delayq.mongo.migration;

import io.delayq.core.AppliedMigration;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs against a real mongod when {@code MONGO_URI} is set, else against mongo-java-server over a socket. */
class MigrationsTest {
    private static MongoServer server;
    private static MongoClient client;

    @BeforeAll
    static void connect() {
        String uri = System.getenv("MONGO_URI");
        if (uri == null || uri.isBlank()) {
            server = new MongoServer(new MemoryBackend());
            uri = server.bindAndGetConnectionString();
        }
        client = MongoClients.create(uri);
    }

    @AfterAll
    static void disconnect() {
        client.close();
        if (server != null) {
            server.shutdownNow();
        }
    }

    private static MongoDatabase freshDatabase() {
        return client.getDatabase("migr-" + UUID.randomUUID().toString().substring(0, 8));
    }

    @Test
    void appliesOnceAndRecordsTheVersion() {
        MongoDatabase db = freshDatabase();

        List<AppliedMigration> first = Migrations.apply(db);
        List<AppliedMigration> second = Migrations.apply(db);

        assertThat(first).extracting(AppliedMigration::version).containsExactly(1, 2, 3);
        assertThat(second).isEmpty();
        assertThat(Migrations.applied(db)).extracting(AppliedMigration::version).containsExactly(1, 2, 3);
        assertThat(Migrations.applied(db)).allSatisfy(m -> {
            assertThat(m.description()).containsAnyOf("dead_letters", "delayq_audit");
            assertThat(m.appliedAt()).isNotNull();
        });
        assertThat(Migrations.latestVersion()).isEqualTo(3);
    }

    @Test
    void createsTheCollectionsAndIndexes() {
        MongoDatabase db = freshDatabase();
        Migrations.apply(db);

        assertThat(db.listCollectionNames().into(new ArrayList<>()))
                .contains(V1ArchiveCollections.DEAD_LETTERS, V1ArchiveCollections.COMPLETED, Migrations.COLLECTION);
        assertThat(indexNames(db, V1ArchiveCollections.DEAD_LETTERS))
                .contains("topic_deadAt_id", "deadAt_id", "topic_jobId_deadAt", V2DeadLetterTombstones.TTL_INDEX);
        assertThat(indexNames(db, V1ArchiveCollections.COMPLETED))
                .contains("topic_jobId_finishedAt", "expireAt_ttl");
    }

    @Test
    void reapplyingAMigrationWhoseRecordWasLostIsHarmless() {
        MongoDatabase db = freshDatabase();
        Migrations.apply(db);
        // As if the process died after applying V1 and V2 but before recording them.
        db.getCollection(Migrations.COLLECTION).deleteMany(new Document());

        assertThat(Migrations.apply(db)).extracting(AppliedMigration::version).containsExactly(1, 2, 3);
        assertThat(Migrations.applied(db)).hasSize(3);
    }

    @Test
    void twoInstancesMigratingAtOnceRecordEachVersionOnce() throws Exception {
        MongoDatabase db = freshDatabase();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Callable<List<AppliedMigration>> run = () -> Migrations.apply(db);
            List<Future<List<AppliedMigration>>> futures = pool.invokeAll(List.of(run, run));
            for (Future<List<AppliedMigration>> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(Migrations.applied(db)).extracting(AppliedMigration::version).containsExactly(1, 2, 3);
        assertThat(Migrations.apply(db)).isEmpty();
    }

    /** V2: each tombstone expires at its own expireAt. */
    @Test
    void theTombstoneIndexIsATtlIndexOnExpireAt() {
        MongoDatabase db = freshDatabase();
        Migrations.apply(db);

        Document ttl = null;
        for (Document index : db.getCollection(V1ArchiveCollections.DEAD_LETTERS).listIndexes()) {
            if (V2DeadLetterTombstones.TTL_INDEX.equals(index.getString("name"))) {
                ttl = index;
            }
        }
        assertThat(ttl).isNotNull();
        assertThat(ttl.get("key", Document.class)).containsEntry("expireAt", 1);
        assertThat(((Number) ttl.get("expireAfterSeconds")).longValue()).isZero();
    }

    /** V3: a tenant's operations and audit entries, newest first, are a range of one index each. */
    @Test
    void theOperatorLogHasItsIndexesByTenant() {
        MongoDatabase db = freshDatabase();
        Migrations.apply(db);

        assertThat(indexKey(db, V3OperatorLogTenants.OPERATIONS, V3OperatorLogTenants.OPERATIONS_INDEX))
                .containsExactly(Map.entry("tenant", 1), Map.entry("createdAt", -1), Map.entry("_id", -1));
        assertThat(indexKey(db, V3OperatorLogTenants.AUDIT, V3OperatorLogTenants.AUDIT_INDEX))
                .containsExactly(Map.entry("tenant", 1), Map.entry("at", -1), Map.entry("_id", -1));
    }

    private static Document indexKey(MongoDatabase db, String collection, String name) {
        for (Document index : db.getCollection(collection).listIndexes()) {
            if (name.equals(index.getString("name"))) {
                return index.get("key", Document.class);
            }
        }
        throw new AssertionError("no index " + name + " on " + collection);
    }

    private static Set<String> indexNames(MongoDatabase db, String collection) {
        Set<String> names = new HashSet<>();
        for (Document index : db.getCollection(collection).listIndexes()) {
            names.add(index.getString("name"));
        }
        return names;
    }
}
