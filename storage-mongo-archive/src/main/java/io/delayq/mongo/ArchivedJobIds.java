package io.delayq.mongo;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.OutboxEntry;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.delayq.mongo.ArchiveDocuments.EXPIRE_AT;
import static io.delayq.mongo.ArchiveDocuments.ID;
import static io.delayq.mongo.ArchiveDocuments.JOB_ID;
import static io.delayq.mongo.ArchiveDocuments.TOPIC;

/**
 * The job ids the archive holds a record of, one document each keyed by its exact {@code _id}
 * ({@code <topic>/<id>}), so that {@link MongoJobArchive#find} of an id the archive never saw is one lookup of a key
 * instead of a search of every dead letter and completed job.
 *
 * <p>Kept for the embedded server only. Its MongoDB-wire implementation (mongo-java-server) serves a query from an
 * index only when the query is an equality on every field of a <em>unique</em> index; the compound secondary indexes
 * that real MongoDB uses for find ({@code topic_jobId_deadAt}, {@code topic_jobId_finishedAt}, migration V1) are
 * accepted but never used, so there find reads whole collections, and a {@code GET} of an unknown job cost two full
 * scans. The {@code _id} index is unique, and serves this lookup. On a real MongoDB find stays as it is, two index
 * probes, and nothing here is written.
 *
 * <p>Fields: {@code dead: true} once a dead letter of the id was written (letters are kept until purged); else
 * {@code expireAt}, the latest {@code expireAt} of its completed records, after which the entry goes with them. An
 * entry is written before the records it lists, so a record the archive holds always has one; an entry whose records
 * are gone (purged letters) only sends find on to the full search, which then finds nothing.
 *
 * <p>Every writer of such a database must keep the directory (the factory's archive does), since find trusts it:
 * a record written by an archive that does not would not be found once the store forgot its job. Nothing is kept in
 * memory, so another instance's writes are seen at once.
 */
final class ArchivedJobIds {
    static final String COLLECTION = "archived_job_ids";
    /** Present once every record written before the directory existed is listed (see {@link #fillOnce}). */
    static final String FILLED_MARKER = "$filled";
    static final String DEAD = "dead";
    private static final int BATCH = 500;
    private static final int DUPLICATE_KEY = 11000;
    private static final Logger LOG = LoggerFactory.getLogger(ArchivedJobIds.class);

    private final MongoCollection<Document> ids;
    ArchivedJobIds(MongoDatabase database) {
        this.ids = database.getCollection(COLLECTION);
    }

    static String key(String topic, String id) {
        return topic + "/" + id; // neither may contain '/' (JobRules)
    }

    /** Whether the archive may hold a record of {@code ref}: false means it holds none. */
    boolean mayHold(JobRef ref) {
        String key = key(ref.topic(), ref.id());
        return ids.find(Filters.eq(ID, key)).projection(Projections.include(ID)).first() != null;
    }

    /** One id to list: held by a dead letter ({@code until} null) or by completed records until {@code until}. */
    private record Listing(String key, Date until) {
    }

    /** Lists the ids of {@code entries} (before their records are written). */
    void add(List<OutboxEntry> entries, long nowMs, Duration completedRetention) {
        List<Listing> listings = new ArrayList<>(entries.size());
        for (OutboxEntry entry : entries) {
            Job job = entry.job();
            // the completed record's own expireAt (ArchiveDocuments.completed)
            listings.add(new Listing(key(job.topic(), job.id()), job.state() == JobState.DEAD ? null
                    : new Date(ArchiveDocuments.finishedAt(job, nowMs) + completedRetention.toMillis())));
        }
        write(listings);
    }

    private void write(List<Listing> listings) {
        // one update per id; a dead letter's listing wins over completed records of the same id
        Map<String, Date> completedUntil = new LinkedHashMap<>();
        Set<String> dead = new LinkedHashSet<>();
        for (Listing listing : listings) {
            if (listing.until() == null) {
                dead.add(listing.key());
            } else {
                completedUntil.merge(listing.key(), listing.until(), (a, b) -> a.after(b) ? a : b);
            }
        }
        List<WriteModel<Document>> updates = new ArrayList<>();
        dead.forEach(key -> updates.add(new UpdateOneModel<>(Filters.eq(ID, key),
                Updates.combine(Updates.set(DEAD, true), Updates.unset(EXPIRE_AT)), new UpdateOptions().upsert(true))));
        completedUntil.forEach((key, until) -> {
            if (!dead.contains(key)) {
                // $max: a later record keeps the entry as long as it lives; an entry a dead letter holds is left alone
                updates.add(new UpdateOneModel<>(Filters.and(Filters.eq(ID, key), Filters.ne(DEAD, true)),
                        Updates.max(EXPIRE_AT, until), new UpdateOptions().upsert(true)));
            }
        });
        if (updates.isEmpty()) {
            return;
        }
        try {
            ids.bulkWrite(updates, new BulkWriteOptions().ordered(false));
        } catch (MongoBulkWriteException e) {
            // A completed record's upsert for an id a dead letter holds matches nothing and tries to insert the same
            // _id: a duplicate key, and the id is listed already. Anything else is a real failure.
            if (e.getWriteConcernError() != null || e.getWriteErrors().stream().anyMatch(w -> w.getCode() != DUPLICATE_KEY)) {
                throw e;
            }
        }
    }

    /** Drops the entries of ids whose completed records have all expired (the embedded server has no TTL monitor). */
    long expire(long nowMs) {
        return ids.deleteMany(Filters.and(Filters.ne(DEAD, true), Filters.lt(EXPIRE_AT, new Date(nowMs))))
                .getDeletedCount();
    }

    /**
     * Lists every record already in the archive, once: an archive written before the directory existed has records
     * it does not list yet. Runs at start-up, before the archive is used (the embedded server has one writer, this
     * process); a start that fails half way does it again, and a finished fill leaves {@value #FILLED_MARKER}.
     *
     * @return how many records were listed
     */
    long fillOnce(MongoCollection<Document> deadLetters, MongoCollection<Document> completed) {
        if (ids.find(Filters.eq(ID, FILLED_MARKER)).first() != null) {
            return 0;
        }
        long listed = 0;
        List<Listing> batch = new ArrayList<>();
        for (Document letter : deadLetters.find(ArchiveDocuments.live()).projection(Projections.include(TOPIC, JOB_ID))) {
            batch.add(new Listing(key(letter.getString(TOPIC), letter.getString(JOB_ID)), null));
            listed += flushIfFull(batch);
        }
        for (Document done : completed.find().projection(Projections.include(TOPIC, JOB_ID, EXPIRE_AT))) {
            batch.add(new Listing(key(done.getString(TOPIC), done.getString(JOB_ID)), done.getDate(EXPIRE_AT)));
            listed += flushIfFull(batch);
        }
        listed += batch.size();
        write(batch);
        ids.updateOne(Filters.eq(ID, FILLED_MARKER), Updates.set("at", new Date()), new UpdateOptions().upsert(true));
        if (listed > 0) {
            LOG.info("Listed the job ids of {} archived records written before the archive kept its id directory", listed);
        }
        return listed;
    }

    private int flushIfFull(List<Listing> batch) {
        if (batch.size() < BATCH) {
            return 0;
        }
        int n = batch.size();
        write(batch);
        batch.clear();
        return n;
    }
}
