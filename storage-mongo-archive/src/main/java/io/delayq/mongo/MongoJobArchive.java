package io.delayq.mongo;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.WriteConcern;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.OutboxEntry;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureGroup;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.Page;
import io.delayq.mongo.migration.V1ArchiveCollections;
import org.bson.BSONException;
import org.bson.Document;
import org.bson.conversions.Bson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import static io.delayq.mongo.ArchiveDocuments.DEAD_AT;
import static io.delayq.mongo.ArchiveDocuments.FINISHED_AT;
import static io.delayq.mongo.ArchiveDocuments.ID;
import static io.delayq.mongo.ArchiveDocuments.JOB_ID;
import static io.delayq.mongo.ArchiveDocuments.NOTICE;
import static io.delayq.mongo.ArchiveDocuments.NOTICE_ATTEMPTS;
import static io.delayq.mongo.ArchiveDocuments.NOTICE_NEXT_ATTEMPT_AT;
import static io.delayq.mongo.ArchiveDocuments.NOTICE_STATE;
import static io.delayq.mongo.ArchiveDocuments.REPLAYS;
import static io.delayq.mongo.ArchiveDocuments.REPLAY_COUNT;
import static io.delayq.mongo.ArchiveDocuments.TOPIC;

/**
 * {@link JobArchive} on MongoDB (or the embedded wire-protocol server), through mongodb-driver-sync.
 *
 * <p>Dead letters go to {@code dead_letters}, keyed {@code <topic>/<id>/<createdAt>} so that each life of a job id
 * is its own document and the same outbox entry written twice is one. The outbox decides the job's fields
 * ({@code $set}); replays and the dead notice are the archive's own and are only initialised on insert
 * ({@code $setOnInsert}), so a re-written entry never wipes a replay already recorded nor makes a sent notice
 * pending again. Other finished jobs go to {@code completed}, replaced
 * whole, with an {@code expireAt} the TTL index honours.
 *
 * <p>A purge turns the dead letter into a tombstone in place ({@code _id}, {@code purgedAt}, {@code expireAt}, nothing
 * else), and the dead letter upsert only matches a document that is not one: upserting a tombstoned key is then a
 * duplicate-key error on {@code _id}, which {@link #write} takes as "purged, leave it". Both are single-document
 * operations, so no interleaving of a purge and another instance's late write of the same outbox entry brings the
 * letter back. The TTL index on {@code expireAt} (migration V2) removes tombstones after {@code tombstoneRetention}.
 *
 * <p>Writes use majority write concern with journaling and return only once acknowledged; any failure is a
 * {@link StoreException} {@link StoreStatus#UNAVAILABLE} and the caller keeps the entries in its outbox. The client
 * is not owned: whoever built it closes it.
 */
public final class MongoJobArchive implements JobArchive {
    /** How long a purged dead letter's tombstone is kept unless configured otherwise. */
    public static final Duration DEFAULT_TOMBSTONE_RETENTION = Duration.ofDays(30);

    private static final int DUPLICATE_KEY = 11000;

    private final MongoCollection<Document> deadLetters;
    private final MongoCollection<Document> completed;
    private final Duration completedRetention;
    private final Duration tombstoneRetention;
    private final Runnable afterWrite;
    private final MongoOperatorLog operatorLog;
    private final ArchivedJobIds jobIds;
    /** Whether {@link #jobIds} lists every record, so that find may trust it (see {@link #keepJobIdDirectory}). */
    private volatile boolean jobIdsKept;

    /**
     * @param database           the archive's database (migrated)
     * @param completedRetention how long succeeded jobs are kept
     * @param tombstoneRetention how long a purged dead letter's tombstone keeps it from being written again
     * @param afterWrite         run after every successful write, e.g. the embedded server's commit to disk
     */
    public MongoJobArchive(MongoDatabase database, Duration completedRetention, Duration tombstoneRetention,
                           Runnable afterWrite) {
        MongoDatabase durable = database.withWriteConcern(WriteConcern.MAJORITY.withJournal(true));
        this.deadLetters = durable.getCollection(V1ArchiveCollections.DEAD_LETTERS);
        this.completed = durable.getCollection(V1ArchiveCollections.COMPLETED);
        this.completedRetention = Objects.requireNonNull(completedRetention, "completedRetention");
        this.tombstoneRetention = Objects.requireNonNull(tombstoneRetention, "tombstoneRetention");
        this.afterWrite = afterWrite == null ? () -> { } : afterWrite;
        this.operatorLog = new MongoOperatorLog(durable, this.tombstoneRetention, this.afterWrite);
        this.jobIds = new ArchivedJobIds(durable);
    }

    /**
     * From now on keeps the directory of archived job ids ({@link ArchivedJobIds}), after listing the records already
     * stored (once per database), and lets {@link #find} answer an id it does not list without searching. For the
     * embedded server, whose queries use no index but a unique one; call it before the archive is used. Every archive
     * writing that database must keep it (see {@link ArchivedJobIds}).
     *
     * @return how many records were listed now (0 on every start after the first)
     */
    public long keepJobIdDirectory() {
        long listed = mutate("list the job ids of the archived records", () -> jobIds.fillOnce(deadLetters, completed));
        jobIdsKept = true;
        return listed;
    }

    public MongoJobArchive(MongoDatabase database, Duration completedRetention, Runnable afterWrite) {
        this(database, completedRetention, DEFAULT_TOMBSTONE_RETENTION, afterWrite);
    }

    public MongoJobArchive(MongoDatabase database, Duration completedRetention) {
        this(database, completedRetention, null);
    }

    @Override
    public void write(List<OutboxEntry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        long now = System.currentTimeMillis();
        List<WriteModel<Document>> dead = new ArrayList<>();
        List<WriteModel<Document>> done = new ArrayList<>();
        for (OutboxEntry entry : entries) {
            Job job = entry.job();
            if (job.state() == JobState.DEAD) {
                // Matches a live letter only: on a tombstone the upsert fails (duplicate _id), see writeDeadLetters.
                Bson liveLetter = Filters.and(Filters.eq(ID, DeadLetter.keyOf(job)), ArchiveDocuments.live());
                List<Bson> update = new ArrayList<>(List.of(setEach(ArchiveDocuments.deadLetterFields(job, now)),
                        Updates.setOnInsert(REPLAY_COUNT, 0),
                        Updates.setOnInsert(REPLAYS, List.of())));
                if (job.onDead() != null) {
                    // On insert only: writing the entry again must not make a notice sent (or being sent) pending.
                    update.add(Updates.setOnInsert(NOTICE, ArchiveDocuments.notice(
                            DeadNotice.pending(ArchiveDocuments.finishedAt(job, now)))));
                }
                dead.add(new UpdateOneModel<>(liveLetter, Updates.combine(update), new UpdateOptions().upsert(true)));
            } else {
                Document doc = ArchiveDocuments.completed(job, now, completedRetention);
                done.add(new ReplaceOneModel<>(Filters.eq(ID, doc.get(ID)), doc, new ReplaceOptions().upsert(true)));
            }
        }
        try {
            mutate("write " + entries.size() + " finished jobs to the archive", () -> {
                if (jobIdsKept) {
                    jobIds.add(entries, now, completedRetention); // first: a record find can see is always listed
                }
                if (!dead.isEmpty()) {
                    writeDeadLetters(dead);
                }
                if (!done.isEmpty()) {
                    completed.bulkWrite(done, new BulkWriteOptions().ordered(false));
                }
                return null;
            });
        } catch (StoreException e) {
            // A write error on a document (as opposed to a write-concern error or a lost connection) will not go
            // away by retrying: say so, so that the archiver sets the entry aside instead of waiting for an outage
            // to end.
            if (e.getCause() instanceof MongoBulkWriteException bulk && !bulk.getWriteErrors().isEmpty()
                    && bulk.getWriteConcernError() == null) {
                // Duplicate keys on dead letters are purged ones (not refusals); name what was refused.
                List<BulkWriteError> refused = bulk.getWriteErrors().stream()
                        .filter(w -> w.getCode() != DUPLICATE_KEY).toList();
                if (refused.isEmpty()) {
                    refused = bulk.getWriteErrors();
                }
                throw new IllegalArgumentException("the archive refused " + refused.size()
                        + " of " + entries.size() + " finished jobs: " + refused.get(0).getMessage(), e);
            }
            throw e;
        } catch (BSONException e) {
            throw new IllegalArgumentException("a finished job cannot be stored as a MongoDB document: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Upserts dead letters. An upsert of a purged letter's key finds its tombstone instead of a live letter, tries to
     * insert, and fails with a duplicate key on {@code _id}: the purge stands and the entry is done. (Two archivers
     * upserting the same new entry at the same moment can meet the same error; the other one wrote it, so it is done
     * too.) Any other write error is the document's fault and is thrown for the archiver to set the entry aside.
     */
    private void writeDeadLetters(List<WriteModel<Document>> upserts) {
        try {
            deadLetters.bulkWrite(upserts, new BulkWriteOptions().ordered(false));
        } catch (MongoBulkWriteException e) {
            if (e.getWriteConcernError() != null
                    || e.getWriteErrors().stream().anyMatch(w -> w.getCode() != DUPLICATE_KEY)) {
                throw e;
            }
        }
    }

    private static Bson setEach(Document fields) {
        List<Bson> sets = new ArrayList<>();
        fields.forEach((k, v) -> sets.add(Updates.set(k, v)));
        return Updates.combine(sets);
    }

    @Override
    public Optional<Job> find(JobRef ref) {
        return read("find job " + ref, () -> {
            if (jobIdsKept && !jobIds.mayHold(ref)) {
                return Optional.empty(); // one lookup of a unique key; the searches below scan on the embedded server
            }
            Document dead = deadLetters.find(Filters.and(Filters.eq(TOPIC, ref.topic()), Filters.eq(JOB_ID, ref.id()),
                            ArchiveDocuments.live()))
                    .sort(Sorts.descending(DEAD_AT)).limit(1).first();
            Document done = completed.find(Filters.and(Filters.eq(TOPIC, ref.topic()), Filters.eq(JOB_ID, ref.id())))
                    .sort(Sorts.descending(FINISHED_AT)).limit(1).first();
            if (dead == null && done == null) {
                return Optional.empty();
            }
            if (done == null || (dead != null && !dead.getDate(DEAD_AT).before(done.getDate(FINISHED_AT)))) {
                return Optional.of(ArchiveDocuments.job(dead));
            }
            return Optional.of(ArchiveDocuments.job(done));
        });
    }

    @Override
    public Page<DeadLetter> deadLetters(DeadLetterQuery query) {
        List<Bson> filters = new ArrayList<>(List.of(DeadLetterFilters.of(query)));
        if (query.cursor() != null) {
            var after = DeadLetterCursor.decode(query.cursor());
            Date at = new Date(after.deadAt());
            filters.add(Filters.or(Filters.lt(DEAD_AT, at),
                    Filters.and(Filters.eq(DEAD_AT, at), Filters.lt(ID, after.key()))));
        }
        return read("list dead letters", () -> {
            List<DeadLetter> items = new ArrayList<>();
            for (Document d : deadLetters.find(Filters.and(filters)).sort(Sorts.descending(DEAD_AT, ID)).limit(query.limit() + 1)) {
                items.add(ArchiveDocuments.deadLetter(d));
            }
            if (items.size() <= query.limit()) {
                return new Page<>(items, null);
            }
            items = items.subList(0, query.limit());
            DeadLetter last = items.get(items.size() - 1);
            return new Page<>(items, DeadLetterCursor.after(last));
        });
    }

    @Override
    public Optional<DeadLetter> deadLetter(JobRef ref) {
        return read("find the dead letter of " + ref, () -> Optional.ofNullable(
                deadLetters.find(Filters.and(Filters.eq(TOPIC, ref.topic()), Filters.eq(JOB_ID, ref.id()),
                                ArchiveDocuments.live()))
                        .sort(Sorts.descending(DEAD_AT, ID)).limit(1).first())
                .map(ArchiveDocuments::deadLetter));
    }

    @Override
    public Optional<DeadLetter> deadLetter(String key) {
        return read("find dead letter " + key, () -> Optional.ofNullable(
                deadLetters.find(Filters.and(Filters.eq(ID, key), ArchiveDocuments.live())).first())
                .map(ArchiveDocuments::deadLetter));
    }

    @Override
    public boolean recordReplay(String key, int expectedReplayCount, DeadLetter.Replay replay) {
        return mutate("record a replay of dead letter " + key, () -> deadLetters.updateOne(
                Filters.and(Filters.eq(ID, key), ArchiveDocuments.live(),
                        Filters.eq(REPLAY_COUNT, expectedReplayCount)),
                Updates.combine(Updates.inc(REPLAY_COUNT, 1), Updates.push(REPLAYS, ArchiveDocuments.replay(replay))))
                .getModifiedCount() == 1);
    }

    /**
     * Pending notices due by {@code nowMs}, earliest first (ties by key), through the partial index
     * {@code pendingNotices_due} ({@link DeadLetterIndexes}), which holds only letters whose notice is pending: the
     * query names {@code notice.state: PENDING} so that MongoDB may use it. (The embedded server keeps no secondary
     * index and scans; the answer is the same.)
     */
    @Override
    public List<DeadLetter> dueNotices(long nowMs, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("notice limit is " + limit + "; use 1 or more"); // 0 is none to MongoDB
        }
        return read("find the dead notices due", () -> {
            List<DeadLetter> due = new ArrayList<>();
            for (Document d : deadLetters.find(Filters.and(
                            Filters.eq(NOTICE_STATE, DeadNotice.State.PENDING.name()),
                            Filters.lte(NOTICE_NEXT_ATTEMPT_AT, new Date(nowMs)), ArchiveDocuments.live()))
                    .sort(Sorts.ascending(NOTICE_NEXT_ATTEMPT_AT, ID)).limit(limit)) {
                due.add(ArchiveDocuments.deadLetter(d));
            }
            return due;
        });
    }

    /** One conditional update of the one document: of several callers expecting the same attempts, one matches. */
    @Override
    public boolean recordNotice(String key, int expectedAttempts, DeadNotice notice) {
        return mutate("record the dead notice of " + key, () -> deadLetters.updateOne(
                Filters.and(Filters.eq(ID, key), ArchiveDocuments.live(),
                        Filters.eq(NOTICE_ATTEMPTS, expectedAttempts)),
                Updates.set(NOTICE, ArchiveDocuments.notice(notice)))
                .getModifiedCount() == 1);
    }

    @Override
    public long purgeDeadLetters(JobRef ref) {
        return purge("purge the dead letters of " + ref,
                Filters.and(Filters.eq(TOPIC, ref.topic()), Filters.eq(JOB_ID, ref.id()), ArchiveDocuments.live()));
    }

    @Override
    public long purgeDeadLetters(DeadLetterQuery filter) {
        return purge("purge dead letters", DeadLetterFilters.of(filter));
    }

    @Override
    public long countDeadLetters(DeadLetterQuery filter) {
        return read("count dead letters", () -> deadLetters.countDocuments(DeadLetterFilters.of(filter)));
    }

    /** Grouped by the server ({@link FailureGroups}); the signature fields are written with each letter. */
    @Override
    public List<FailureGroup> failureGroups(DeadLetterQuery filter, int limit, long nowMs) {
        return read("group dead letters by failure", () -> new FailureGroups(deadLetters).of(filter, limit, nowMs));
    }

    /**
     * Gives the dead letters written without the dashboard's fields (before this version, or by an older instance)
     * their failure signature, last status and parsed payload, in batches ({@link SignatureBackfill}). The factory
     * runs it at start-up.
     *
     * @return how many letters it changed
     */
    public long signUnsignedDeadLetters() {
        return mutate("compute the failure signatures of older dead letters",
                () -> SignatureBackfill.run(deadLetters, afterWrite));
    }

    /** Turns the (live) dead letters matching {@code filter} into tombstones (see the class comment). */
    private long purge(String what, Bson filter) {
        Bson tombstone = ArchiveDocuments.tombstone(System.currentTimeMillis(), tombstoneRetention);
        return mutate(what, () -> deadLetters.updateMany(filter, tombstone).getModifiedCount());
    }

    /**
     * Removes tombstones past their retention. MongoDB's TTL monitor does this by itself (index {@code expireAt_ttl}
     * of {@code dead_letters}); the embedded server has none, so its factory calls this now and then.
     */
    public long expireTombstones(long nowMs) {
        return mutate("expire tombstones of purged dead letters", () -> deadLetters.deleteMany(Filters.and(
                Filters.exists(ArchiveDocuments.PURGED_AT), Filters.lt(ArchiveDocuments.EXPIRE_AT, new Date(nowMs))))
                .getDeletedCount());
    }

    /**
     * Removes succeeded jobs past their retention. MongoDB's TTL monitor does this by itself; the embedded server has
     * no TTL monitor, so its factory calls this now and then.
     */
    public long expireCompleted(long nowMs) {
        return mutate("expire completed jobs", () -> {
            long expired = completed.deleteMany(Filters.lt(ArchiveDocuments.EXPIRE_AT, new Date(nowMs))).getDeletedCount();
            if (jobIdsKept) {
                jobIds.expire(nowMs); // after the records: an id stays listed while a record of it is left
            }
            return expired;
        });
    }

    /** Counts of both collections (dead letters not purged), for tests and diagnostics. */
    public long deadLetterCount() {
        return read("count dead letters", () -> deadLetters.countDocuments(ArchiveDocuments.live()));
    }

    public long completedCount() {
        return read("count completed jobs", () -> completed.countDocuments());
    }

    @Override
    public MongoOperatorLog operatorLog() {
        return operatorLog;
    }

    @Override
    public void close() {
        // The client belongs to whoever built it (the factory's lifecycle closes it).
    }

    private <T> T mutate(String what, Supplier<T> action) {
        return MongoCalls.mutate(what, afterWrite, action);
    }

    private static <T> T read(String what, Supplier<T> action) {
        return MongoCalls.read(what, action);
    }
}
