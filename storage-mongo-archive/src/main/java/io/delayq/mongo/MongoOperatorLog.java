package io.delayq.mongo;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.OperatorLog;
import io.delayq.mongo.migration.V3OperatorLogTenants;
import org.bson.Document;
import org.bson.conversions.Bson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The {@link OperatorLog} of {@link MongoJobArchive}: bulk operations in {@code delayq_operations} (keyed by their id)
 * and the audit log in {@code delayq_audit}, in the archive's database.
 *
 * <p>A progress report is one {@code findOneAndUpdate} that {@code $set}s only the progress fields, so a cancel another
 * instance requested meanwhile ({@code cancelRequested}) survives it and is in the document it returns. A cancel is
 * one {@code findOneAndUpdate} matching only a running operation.
 *
 * <p>Every document carries {@code expireAt}: an operation's last change (its {@code updatedAt}) or an entry's
 * {@code at}, plus the retention ({@link #MIN_RETENTION}, or the archive's tombstone retention when that is longer).
 * A TTL index on it removes the document then; the embedded server has no TTL monitor, so {@link #expire} does its
 * job. The indexes of the operators' reads are created on first use ({@code createIndex} of an existing index is a
 * no-op); those of a tenant's reads ({@code tenant} first) by the migration {@link V3OperatorLogTenants}.
 *
 * <p>A tenant's read ({@code tenant} not null) is an equality on {@code tenant} ahead of everything else it matches,
 * so it is a range of a V3 index and never sees another tenant's record: an id of another tenant's operation or
 * entry is answered as unknown.
 */
public final class MongoOperatorLog implements OperatorLog {
    public static final String OPERATIONS = V3OperatorLogTenants.OPERATIONS;
    public static final String AUDIT = V3OperatorLogTenants.AUDIT;
    /** Operations and audit entries are kept at least this long (OperatorLog's promise). */
    public static final Duration MIN_RETENTION = Duration.ofDays(30);

    static final String ID = "_id";
    static final String EXPIRE_AT = "expireAt";
    private static final String KIND = "kind";
    private static final String FILTER = "filter";
    private static final String STATE = "state";
    private static final String TOTAL = "total";
    private static final String DONE = "done";
    private static final String FAILED = "failed";
    private static final String STARTED_BY = "startedBy";
    private static final String CREATED_AT = "createdAt";
    private static final String UPDATED_AT = "updatedAt";
    private static final String CANCEL_REQUESTED = "cancelRequested";
    private static final String LAST_ERROR = "lastError";
    private static final String AT = "at";
    private static final String ACTOR = "actor";
    private static final String ACTION = "action";
    private static final String TARGET = "target";
    private static final String COUNT = "count";
    private static final String DETAIL = "detail";
    private static final String TENANT = "tenant";

    private static final FindOneAndUpdateOptions RETURN_AFTER =
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);

    private final MongoCollection<Document> operations;
    private final MongoCollection<Document> audit;
    private final long retentionMs;
    private final Runnable afterWrite;
    private volatile boolean indexed;

    /**
     * @param database           the archive's database, with the write concern of its other writes
     * @param tombstoneRetention the archive's: records are kept as long as tombstones, and at least 30 days
     * @param afterWrite         run after every successful write, e.g. the embedded server's commit to disk
     */
    public MongoOperatorLog(MongoDatabase database, Duration tombstoneRetention, Runnable afterWrite) {
        this.operations = database.getCollection(OPERATIONS);
        this.audit = database.getCollection(AUDIT);
        this.retentionMs = Math.max(MIN_RETENTION.toMillis(), tombstoneRetention.toMillis());
        this.afterWrite = afterWrite == null ? () -> { } : afterWrite;
    }

    @Override
    public void save(BulkOperation operation) {
        mutate("save bulk operation " + operation.id(), () -> operations.replaceOne(Filters.eq(ID, operation.id()),
                document(operation), new ReplaceOptions().upsert(true)));
    }

    @Override
    public Optional<BulkOperation> report(BulkOperation progress) {
        List<Bson> sets = new ArrayList<>(List.of(
                Updates.set(DONE, progress.done()),
                Updates.set(FAILED, progress.failed()),
                Updates.set(LAST_ERROR, progress.lastError()),
                Updates.set(UPDATED_AT, new Date(progress.updatedAt())),
                Updates.set(EXPIRE_AT, expireAt(progress.updatedAt()))));
        if (progress.state().finished()) {
            sets.add(Updates.set(STATE, progress.state().name()));
        }
        // $set of these fields only: cancelRequested, set by another instance meanwhile, is left as it is
        return mutate("report the progress of bulk operation " + progress.id(), () -> Optional.ofNullable(
                operations.findOneAndUpdate(Filters.eq(ID, progress.id()), Updates.combine(sets), RETURN_AFTER))
                .map(MongoOperatorLog::operation));
    }

    @Override
    public Optional<BulkOperation> requestCancel(String id, String tenant) {
        return mutate("cancel bulk operation " + id, () -> {
            Bson mine = ofTenant(tenant, Filters.eq(ID, id));
            Document cancelled = operations.findOneAndUpdate(
                    Filters.and(mine, Filters.eq(STATE, BulkOperation.State.RUNNING.name())),
                    Updates.set(CANCEL_REQUESTED, true), RETURN_AFTER);
            // not running: finished (left as it is) or unknown (or another tenant's)
            return Optional.ofNullable(cancelled != null ? cancelled : operations.find(mine).first())
                    .map(MongoOperatorLog::operation);
        });
    }

    @Override
    public Optional<BulkOperation> operation(String id, String tenant) {
        return read("read bulk operation " + id, () -> Optional.ofNullable(
                operations.find(ofTenant(tenant, Filters.eq(ID, id))).first()).map(MongoOperatorLog::operation));
    }

    @Override
    public List<BulkOperation> operations(int limit, String tenant) {
        checkLimit(limit);
        return read("list bulk operations", () -> operations.find(ofTenant(tenant, new Document()))
                .sort(Sorts.descending(CREATED_AT, ID)).limit(limit).map(MongoOperatorLog::operation)
                .into(new ArrayList<>()));
    }

    @Override
    public void audit(AuditEntry entry) {
        // an upsert, so that a retried append (its first try may have landed) is still one entry
        mutate("append to the audit log", () -> audit.replaceOne(Filters.eq(ID, entry.id()), document(entry),
                new ReplaceOptions().upsert(true)));
    }

    @Override
    public List<AuditEntry> auditLog(int limit, String beforeId, String tenant) {
        checkLimit(limit);
        return read("read the audit log", () -> {
            Bson older = new Document();
            if (beforeId != null) {
                Document last = audit.find(ofTenant(tenant, Filters.eq(ID, beforeId))).first();
                if (last == null) {
                    throw new IllegalArgumentException("there is no audit entry " + beforeId + " to page from (it may"
                            + " have expired); start again from the newest entries");
                }
                Date at = last.getDate(AT);
                older = Filters.or(Filters.lt(AT, at), Filters.and(Filters.eq(AT, at), Filters.lt(ID, beforeId)));
            }
            return audit.find(ofTenant(tenant, older)).sort(Sorts.descending(AT, ID)).limit(limit)
                    .map(MongoOperatorLog::entry).into(new ArrayList<>());
        });
    }

    /**
     * Removes operations and audit entries past their retention. MongoDB's TTL monitor does this by itself; the
     * embedded server has none. For the embedded server's timer and for tests.
     *
     * @return how many documents were removed
     */
    public long expire(long nowMs) {
        Bson expired = Filters.lt(EXPIRE_AT, new Date(nowMs));
        return mutate("expire operator log records", () -> operations.deleteMany(expired).getDeletedCount()
                + audit.deleteMany(expired).getDeletedCount());
    }

    /** {@code filter}, of the tenant's records only ({@code null}: everyone's, an operator's read). */
    private static Bson ofTenant(String tenant, Bson filter) {
        return tenant == null ? filter : Filters.and(Filters.eq(TENANT, tenant), filter);
    }

    // ---------------------------------------------------------------- documents

    private Document document(BulkOperation op) {
        return new Document(ID, op.id())
                .append(KIND, op.kind().name())
                .append(FILTER, op.filter())
                .append(STATE, op.state().name())
                .append(TOTAL, op.total())
                .append(DONE, op.done())
                .append(FAILED, op.failed())
                .append(STARTED_BY, op.startedBy())
                .append(CREATED_AT, new Date(op.createdAt()))
                .append(UPDATED_AT, new Date(op.updatedAt()))
                .append(CANCEL_REQUESTED, op.cancelRequested())
                .append(LAST_ERROR, op.lastError())
                .append(TENANT, op.tenant())
                .append(EXPIRE_AT, expireAt(op.updatedAt()));
    }

    private static BulkOperation operation(Document d) {
        return new BulkOperation(d.getString(ID), BulkOperation.Kind.valueOf(d.getString(KIND)), d.getString(FILTER),
                BulkOperation.State.valueOf(d.getString(STATE)), number(d, TOTAL), number(d, DONE),
                number(d, FAILED), d.getString(STARTED_BY), d.getDate(CREATED_AT).getTime(),
                d.getDate(UPDATED_AT).getTime(), d.getBoolean(CANCEL_REQUESTED, false), d.getString(LAST_ERROR),
                d.getString(TENANT));
    }

    private Document document(AuditEntry e) {
        return new Document(ID, e.id())
                .append(AT, new Date(e.at()))
                .append(ACTOR, e.actor())
                .append(ACTION, e.action())
                .append(TARGET, e.target())
                .append(COUNT, e.count())
                .append(DETAIL, e.detail())
                .append(TENANT, e.tenant())
                .append(EXPIRE_AT, expireAt(e.at()));
    }

    private static AuditEntry entry(Document d) {
        return new AuditEntry(d.getString(ID), d.getDate(AT).getTime(), d.getString(ACTOR), d.getString(ACTION),
                d.getString(TARGET), number(d, COUNT), d.getString(DETAIL), d.getString(TENANT));
    }

    /** A long as stored: small values may come back as int32 from some servers. */
    private static long number(Document d, String field) {
        return ((Number) d.get(field)).longValue();
    }

    private Date expireAt(long lastChangeMs) {
        return new Date(lastChangeMs + retentionMs);
    }

    private static void checkLimit(int limit) {
        if (limit < 1 || limit > DeadLetterQuery.MAX_LIMIT) {
            throw new IllegalArgumentException("limit is " + limit + "; use 1 to " + DeadLetterQuery.MAX_LIMIT);
        }
    }

    // ---------------------------------------------------------------- indexes and errors

    /**
     * The indexes behind the reads and the retention, created once per instance before its first call (a failed
     * attempt is tried again on the next call): operations newest first, the audit log newest first by
     * ({@code at}, {@code _id}) (both walked backwards by their paging), and a TTL index on {@code expireAt} in each.
     */
    private void ensureIndexes() {
        if (indexed) {
            return;
        }
        IndexOptions ttl = new IndexOptions().name("expireAt_ttl").expireAfter(0L, TimeUnit.SECONDS);
        operations.createIndex(Indexes.descending(CREATED_AT, ID), new IndexOptions().name("createdAt_id"));
        operations.createIndex(Indexes.ascending(EXPIRE_AT), ttl);
        audit.createIndex(Indexes.descending(AT, ID), new IndexOptions().name("at_id"));
        audit.createIndex(Indexes.ascending(EXPIRE_AT), ttl);
        indexed = true;
    }

    private <T> T mutate(String what, Supplier<T> action) {
        return MongoCalls.mutate(what, afterWrite, () -> {
            ensureIndexes();
            return action.get();
        });
    }

    private <T> T read(String what, Supplier<T> action) {
        return MongoCalls.read(what, () -> {
            ensureIndexes();
            return action.get();
        });
    }
}
