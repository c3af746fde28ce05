package io.delayq.mongo.migration;

import io.delayq.core.AppliedMigration;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies the archive's MongoDB migrations that have not run yet, in version order, and records each in
 * {@code schema_migrations} ({@code _id} = version, {@code description}, {@code appliedAt}).
 *
 * <p>Safe to run again and on several instances at once: every migration is idempotent, and the record is an upsert
 * on the version that keeps the first {@code appliedAt}. A failing migration stops the run before anything later is
 * applied, and is not recorded, so the next run tries it again.
 */
public final class Migrations {
    public static final String COLLECTION = "schema_migrations";

    private static final Logger LOG = LoggerFactory.getLogger(Migrations.class);

    /** Every Mongo migration, in version order. Append; never edit one that has been released. */
    public static final List<MongoMigration> MONGO = List.of(new V1ArchiveCollections(), new V2DeadLetterTombstones(),
            new V3OperatorLogTenants());

    private Migrations() {
    }

    /** Applies what has not run yet. @return the migrations this call applied (empty when up to date) */
    public static List<AppliedMigration> apply(MongoDatabase database) {
        return apply(database, MONGO);
    }

    static List<AppliedMigration> apply(MongoDatabase database, List<MongoMigration> migrations) {
        MongoCollection<Document> records = database.getCollection(COLLECTION);
        Set<Integer> done = new HashSet<>();
        for (Document record : records.find()) {
            done.add(record.getInteger("_id"));
        }
        List<AppliedMigration> ran = new ArrayList<>();
        List<MongoMigration> ordered = migrations.stream().sorted(Comparator.comparingInt(MongoMigration::version)).toList();
        for (MongoMigration migration : ordered) {
            if (done.contains(migration.version())) {
                continue;
            }
            LOG.info("Applying archive migration V{}: {}", migration.version(), migration.description());
            migration.apply(database);
            Instant now = Instant.now();
            records.updateOne(Filters.eq("_id", migration.version()),
                    Updates.combine(
                            Updates.setOnInsert("description", migration.description()),
                            Updates.setOnInsert("appliedAt", Date.from(now))),
                    new UpdateOptions().upsert(true));
            ran.add(new AppliedMigration(migration.version(), migration.description(), now));
        }
        return ran;
    }

    /** What {@code schema_migrations} records, in version order. */
    public static List<AppliedMigration> applied(MongoDatabase database) {
        List<AppliedMigration> list = new ArrayList<>();
        for (Document d : database.getCollection(COLLECTION).find().sort(Sorts.ascending("_id"))) {
            list.add(new AppliedMigration(d.getInteger("_id"), d.getString("description"),
                    d.getDate("appliedAt").toInstant()));
        }
        return list;
    }

    /** The newest version this build knows. */
    public static int latestVersion() {
        return MONGO.stream().mapToInt(MongoMigration::version).max().orElse(0);
    }
}
