package io.delayq.mongo.migration;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The archive's two collections and the indexes behind its queries:
 * <ul>
 *   <li>{@code dead_letters}: listings filter by topic and page by ({@code deadAt}, {@code _id}) descending, so both
 *       the per-topic and the all-topics listing walk an index; "the newest dead letter of a job" walks
 *       ({@code topic}, {@code jobId}, {@code deadAt}).</li>
 *   <li>{@code completed}: looked up by job; each document carries {@code expireAt} (finish time + the configured
 *       retention, decided at write time so that changing the retention needs no migration) and a TTL index with
 *       {@code expireAfterSeconds: 0} removes it then.</li>
 * </ul>
 */
public final class V1ArchiveCollections implements MongoMigration {
    public static final String DEAD_LETTERS = "dead_letters";
    public static final String COMPLETED = "completed";

    @Override
    public int version() {
        return 1;
    }

    @Override
    public String description() {
        return "dead_letters and completed collections, their query indexes and the completed TTL index";
    }

    @Override
    public void apply(MongoDatabase database) {
        Set<String> existing = database.listCollectionNames().into(new HashSet<>());
        createIfMissing(database, existing, DEAD_LETTERS);
        createIfMissing(database, existing, COMPLETED);

        var deadLetters = database.getCollection(DEAD_LETTERS);
        deadLetters.createIndex(Indexes.compoundIndex(Indexes.ascending("topic"), Indexes.descending("deadAt", "_id")),
                new IndexOptions().name("topic_deadAt_id"));
        deadLetters.createIndex(Indexes.descending("deadAt", "_id"), new IndexOptions().name("deadAt_id"));
        deadLetters.createIndex(Indexes.compoundIndex(Indexes.ascending("topic", "jobId"), Indexes.descending("deadAt")),
                new IndexOptions().name("topic_jobId_deadAt"));

        var completed = database.getCollection(COMPLETED);
        completed.createIndex(Indexes.compoundIndex(Indexes.ascending("topic", "jobId"), Indexes.descending("finishedAt")),
                new IndexOptions().name("topic_jobId_finishedAt"));
        completed.createIndex(Indexes.ascending("expireAt"),
                new IndexOptions().name("expireAt_ttl").expireAfter(0L, TimeUnit.SECONDS));
    }

    private static void createIfMissing(MongoDatabase database, Set<String> existing, String name) {
        if (existing.contains(name)) {
            return;
        }
        try {
            database.createCollection(name);
        } catch (MongoCommandException e) {
            // 48 NamespaceExists: another instance created it between our listing and now, which is what we wanted.
            if (e.getErrorCode() != 48) {
                throw e;
            }
        }
    }
}
