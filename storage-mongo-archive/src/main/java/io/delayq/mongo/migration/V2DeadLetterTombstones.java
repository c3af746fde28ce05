package io.delayq.mongo.migration;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;

import java.util.concurrent.TimeUnit;

/**
 * Tombstones of purged dead letters expire. A purge turns a dead letter into a tombstone ({@code _id},
 * {@code purgedAt}, {@code expireAt}) that keeps a late write of the same outbox entry from bringing it back; the
 * TTL index {@code expireAt_ttl} on {@code dead_letters} ({@code expireAfterSeconds: 0}) removes each tombstone at
 * its own {@code expireAt}, which the archive sets to the purge time plus its configured tombstone retention (so
 * changing the retention needs no migration). Live dead letters have no {@code expireAt} and are never expired.
 */
public final class V2DeadLetterTombstones implements MongoMigration {
    public static final String TTL_INDEX = "expireAt_ttl";

    @Override
    public int version() {
        return 2;
    }

    @Override
    public String description() {
        return "dead_letters TTL index on expireAt, which removes the tombstones of purged dead letters";
    }

    @Override
    public void apply(MongoDatabase database) {
        database.getCollection(V1ArchiveCollections.DEAD_LETTERS).createIndex(Indexes.ascending("expireAt"),
                new IndexOptions().name(TTL_INDEX).expireAfter(0L, TimeUnit.SECONDS));
    }
}
