package io.delayq.mongo;

import com.mongodb.client.MongoDatabase;
import io.delayq.core.AppliedMigration;
import io.delayq.mongo.migration.Migrations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What the factory has done to the archive besides building it: the schema at start-up, the signatures and the job-id
 * directory that older archives lack, and on the embedded server, which has no TTL monitor, that monitor's job. Only
 * the schema may stop a start: the others are logged and tried again later.
 */
final class ArchiveMaintenance {
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveMaintenance.class);

    private ArchiveMaintenance() {
    }

    /**
     * Applies missing migrations and logs what ran; then makes sure of the dashboard's dead-letter indexes
     * ({@link DeadLetterIndexes}: {@code createIndex}, nothing to do when they are there).
     */
    static List<AppliedMigration> migrate(MongoDatabase database) {
        List<AppliedMigration> ran = Migrations.apply(database);
        DeadLetterIndexes.ensure(database);
        if (!ran.isEmpty()) {
            LOG.info("Archive schema migrated: applied {}", ran);
        }
        return ran;
    }

    /**
     * Dead letters written before failure signatures get theirs now, so that they are grouped and filtered like the
     * others. An archive that cannot be reached is no reason not to start (the archiver waits for it): logged, and
     * done at the next start.
     */
    static void signUnsigned(MongoJobArchive archive) {
        try {
            archive.signUnsignedDeadLetters();
        } catch (RuntimeException e) {
            LOG.warn("Could not compute the failure signatures of older dead letters; they are left out of failure"
                    + " groups and of host, status, group and payload filters until the next start: {}", e.toString());
        }
    }

    /**
     * The embedded server answers a query from an index only for a unique one: the archive keeps a directory of its job
     * ids so that a lookup of an unknown job is one key lookup rather than a scan (see {@link ArchivedJobIds}). Until
     * it has listed what is stored, find searches as before: a failure here is logged, and tried again at the next start.
     */
    static void keepJobIdDirectory(MongoJobArchive archive) {
        try {
            archive.keepJobIdDirectory();
        } catch (RuntimeException e) {
            LOG.warn("Could not list the job ids of the archived records; a GET of a job the store has forgotten searches"
                    + " the whole archive until the next start: {}", e.toString());
        }
    }

    /** The TTL monitor's job, for the embedded server that has none: every record past its {@code expireAt} goes. */
    static void expire(MongoJobArchive archive) {
        try {
            long now = System.currentTimeMillis();
            archive.expireCompleted(now);
            archive.expireTombstones(now);
            archive.operatorLog().expire(now);
        } catch (RuntimeException e) {
            LOG.warn("Could not remove completed jobs, tombstones and operator records past their retention; will try"
                    + " again: {}", e.toString());
        }
    }
}
