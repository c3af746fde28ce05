package io.delayq.mongo;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoException;
import com.mongodb.WriteConcern;
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
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.Page;
import io.delayq.migrations.mongo.V1ArchiveCollections;
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
import static io.delayq.mongo.ArchiveDocuments.REPLAYS;
import static io.delayq.mongo.ArchiveDocuments.REPLAY_COUNT;
import static io.delayq.mongo.ArchiveDocuments.TOPIC;

/**
 * {@link JobArchive} on MongoDB (or the embedded wire-protocol server), through mongodb-driver-sync.
 *
 * <p>Dead letters go to {@code dead_letters}, keyed {@code <topic>/<id>/<createdAt>} so that each life of a job id
 * is its own document and the same outbox entry written twice is one. The outbox decides the job's fields
 * ({@code $set}); replays are the archive's own and are only initialised on insert ({@code $setOnInsert}), so a
 * re-written entry never wipes a replay already recorded. Other finished jobs go to {@code completed}, replaced
 * whole, with an {@code expireAt} the TTL index honours.
 *
 * <p>Writes use majority write concern with journaling and return only once acknowledged; any failure is a
 * {@link StoreException} {@link StoreStatus#UNAVAILABLE} and the caller keeps the entries in its outbox. The client
 * is not owned: whoever built it closes it.
 */
public final class MongoJobArchive implements JobArchive {
    private final MongoCollection<Document> deadLetters;
    private final MongoCollection<Document> completed;
    private final Duration completedRetention;
    private final Runnable afterWrite;

    /**
     * @param database           the archive's database (migrated)
     * @param completedRetention how long succeeded jobs are kept
     * @param afterWrite         run after every successful write, e.g. the embedded server's commit to disk
     */
    public MongoJobArchive(MongoDatabase database, Duration completedRetention, Runnable afterWrite) {
        MongoDatabase durable = database.withWriteConcern(WriteConcern.MAJORITY.withJournal(true));
        this.deadLetters = durable.getCollection(V1ArchiveCollections.DEAD_LETTERS);
        this.completed = durable.getCollection(V1ArchiveCollections.COMPLETED);
        this.completedRetention = Objects.requireNonNull(completedRetention, "completedRetention");
        this.afterWrite = afterWrite == null ? () -> { } : afterWrite;
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
                dead.add(new UpdateOneModel<>(Filters.eq(ID, DeadLetter.keyOf(job)),
                        Updates.combine(setEach(ArchiveDocuments.deadLetterFields(job, now)),
                                Updates.setOnInsert(REPLAY_COUNT, 0),
                                Updates.setOnInsert(REPLAYS, List.of())),
                        new UpdateOptions().upsert(true)));
            } else {
                Document doc = ArchiveDocuments.completed(job, now, completedRetention);
                done.add(new ReplaceOneModel<>(Filters.eq(ID, doc.get(ID)), doc, new ReplaceOptions().upsert(true)));
            }
        }
        try {
            mutate("write " + entries.size() + " finished jobs to the archive", () -> {
                if (!dead.isEmpty()) {
                    deadLetters.bulkWrite(dead, new BulkWriteOptions().ordered(false));
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
                throw new IllegalArgumentException("the archive refused " + bulk.getWriteErrors().size()
                        + " of " + entries.size() + " finished jobs: " + bulk.getWriteErrors().get(0).getMessage(), e);
            }
            throw e;
        } catch (BSONException e) {
            throw new IllegalArgumentException("a finished job cannot be stored as a MongoDB document: "
                    + e.getMessage(), e);
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
            Document dead = deadLetters.find(Filters.and(Filters.eq(TOPIC, ref.topic()), Filters.eq(JOB_ID, ref.id())))
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
        List<Bson> filters = new ArrayList<>(filters(query));
        if (query.cursor() != null) {
            var after = ArchiveDocuments.position(query.cursor());
            Date at = new Date(after.deadAt());
            filters.add(Filters.or(Filters.lt(DEAD_AT, at),
                    Filters.and(Filters.eq(DEAD_AT, at), Filters.lt(ID, after.key()))));
        }
        return read("list dead letters", () -> {
            List<DeadLetter> items = new ArrayList<>();
            for (Document d : deadLetters.find(and(filters)).sort(Sorts.descending(DEAD_AT, ID)).limit(query.limit() + 1)) {
                items.add(ArchiveDocuments.deadLetter(d));
            }
            if (items.size() <= query.limit()) {
                return new Page<>(items, null);
            }
            items = items.subList(0, query.limit());
            DeadLetter last = items.get(items.size() - 1);
            return new Page<>(items, ArchiveDocuments.cursor(last.deadAt(), last.key()));
        });
    }

    @Override
    public Optional<DeadLetter> deadLetter(JobRef ref) {
        return read("find the dead letter of " + ref, () -> Optional.ofNullable(
                deadLetters.find(Filters.and(Filters.eq(TOPIC, ref.topic()), Filters.eq(JOB_ID, ref.id())))
                        .sort(Sorts.descending(DEAD_AT, ID)).limit(1).first())
                .map(ArchiveDocuments::deadLetter));
    }

    @Override
    public Optional<DeadLetter> deadLetter(String key) {
        return read("find dead letter " + key, () -> Optional.ofNullable(deadLetters.find(Filters.eq(ID, key)).first())
                .map(ArchiveDocuments::deadLetter));
    }

    @Override
    public boolean recordReplay(String key, int expectedReplayCount, DeadLetter.Replay replay) {
        return mutate("record a replay of dead letter " + key, () -> deadLetters.updateOne(
                Filters.and(Filters.eq(ID, key), Filters.eq(REPLAY_COUNT, expectedReplayCount)),
                Updates.combine(Updates.inc(REPLAY_COUNT, 1), Updates.push(REPLAYS, ArchiveDocuments.replay(replay))))
                .getModifiedCount() == 1);
    }

    @Override
    public long purgeDeadLetters(JobRef ref) {
        return mutate("purge the dead letters of " + ref, () -> deadLetters.deleteMany(
                Filters.and(Filters.eq(TOPIC, ref.topic()), Filters.eq(JOB_ID, ref.id()))).getDeletedCount());
    }

    @Override
    public long purgeDeadLetters(DeadLetterQuery filter) {
        return mutate("purge dead letters", () -> deadLetters.deleteMany(and(filters(filter))).getDeletedCount());
    }

    /**
     * Removes succeeded jobs past their retention. MongoDB's TTL monitor does this by itself; the embedded server has
     * no TTL monitor, so its factory calls this now and then.
     */
    public long expireCompleted(long nowMs) {
        return mutate("expire completed jobs",
                () -> completed.deleteMany(Filters.lt(ArchiveDocuments.EXPIRE_AT, new Date(nowMs))).getDeletedCount());
    }

    /** Counts of both collections, for tests and diagnostics. */
    public long deadLetterCount() {
        return read("count dead letters", () -> deadLetters.countDocuments());
    }

    public long completedCount() {
        return read("count completed jobs", () -> completed.countDocuments());
    }

    @Override
    public void close() {
        // The client belongs to whoever built it (the factory's lifecycle closes it).
    }

    private static List<Bson> filters(DeadLetterQuery query) {
        List<Bson> filters = new ArrayList<>();
        if (query.topic() != null) {
            filters.add(Filters.eq(TOPIC, query.topic()));
        }
        if (query.fromMs() != null) {
            filters.add(Filters.gte(DEAD_AT, new Date(query.fromMs())));
        }
        if (query.toMs() != null) {
            filters.add(Filters.lt(DEAD_AT, new Date(query.toMs())));
        }
        if (query.replayed() != null) {
            filters.add(query.replayed() ? Filters.gt(REPLAY_COUNT, 0) : Filters.eq(REPLAY_COUNT, 0));
        }
        return filters;
    }

    private static Bson and(List<Bson> filters) {
        return filters.isEmpty() ? new Document() : Filters.and(filters);
    }

    private <T> T mutate(String what, Supplier<T> action) {
        T result = read(what, action);
        try {
            afterWrite.run();
        } catch (RuntimeException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the archive accepted the change but could not make it"
                    + " durable (" + what + "): " + e.getMessage(), e);
        }
        return result;
    }

    private static <T> T read(String what, Supplier<T> action) {
        try {
            return action.get();
        } catch (MongoException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the archive could not " + what + ": " + e.getMessage(), e);
        }
    }
}
