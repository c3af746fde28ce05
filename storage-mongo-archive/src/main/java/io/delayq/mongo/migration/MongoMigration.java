package io.delayq.mongo.migration;

import com.mongodb.client.MongoDatabase;

/**
 * One versioned change to the archive's MongoDB schema (collections and indexes). Migrations are forward-only and
 * must be idempotent: {@link #apply} may run again after a crash, or on two instances starting together, before its
 * version is recorded.
 */
public interface MongoMigration {

    /** Strictly increasing from 1; never reused or renumbered once released. */
    int version();

    /** What it does, for {@code schema_migrations} and the logs. */
    String description();

    void apply(MongoDatabase database);
}
