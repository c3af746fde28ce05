package io.delayq.postgres.archive;

import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.OperatorLog;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The {@link OperatorLog} of {@link PostgresJobArchive}: bulk operations in {@code delayq_operations} and the audit log
 * in {@code delayq_audit} (migration V6), one statement per operation ({@link OperatorLogStatements}).
 *
 * <p>A progress report is one UPDATE that writes the progress columns only, so a cancel requested meanwhile by another
 * instance survives it and is in the row it returns. Each row carries {@code expire_at} (its last change plus the
 * retention: {@link #MIN_RETENTION}, or the archive's tombstone retention when longer); the archive's reaper thread
 * also runs this log's reaper, which drops rows past it in batches.
 *
 * <p>A tenant's reads are statements of their own ({@code operations_of_tenant}, {@code audit_log_of_tenant…}), ranges
 * of V16's indexes led by the tenant, rather than one statement with "{@code :tenant IS NULL OR …}" whose generic plan
 * could serve only one of the two; reads by id add the tenant to the primary key's probe.
 */
final class PostgresOperatorLog implements OperatorLog {
    /** Operations and audit entries are kept at least this long (OperatorLog's promise). */
    static final Duration MIN_RETENTION = Duration.ofDays(30);

    private static final Logger LOG = LoggerFactory.getLogger(PostgresOperatorLog.class);

    private final OperatorLogStatements statements;
    private final long retentionMs;
    private final int reaperBatch;

    /**
     * @param jdbi   the archive's (with the SQL object and PostgreSQL plugins)
     * @param reaper the archive's reaper thread: this log's reaper runs there, at the archive's interval, and stops
     *               with it
     */
    PostgresOperatorLog(Jdbi jdbi, PostgresArchiveOptions options, ScheduledExecutorService reaper) {
        jdbi.registerRowMapper(BulkOperation.class, (rs, ctx) -> new BulkOperation(rs.getString("id"),
                BulkOperation.Kind.valueOf(rs.getString("kind")), rs.getString("filter"),
                BulkOperation.State.valueOf(rs.getString("state")), rs.getLong("total"), rs.getLong("done"),
                rs.getLong("failed"), rs.getString("started_by"), rs.getLong("created_at_ms"),
                rs.getLong("updated_at_ms"), rs.getBoolean("cancel_requested"), rs.getString("last_error"),
                rs.getString("tenant")));
        jdbi.registerRowMapper(AuditEntry.class, (rs, ctx) -> new AuditEntry(rs.getString("id"), rs.getLong("at_ms"),
                rs.getString("actor"), rs.getString("action"), rs.getString("target"), rs.getLong("count"),
                rs.getString("detail"), rs.getString("tenant")));
        this.statements = jdbi.onDemand(OperatorLogStatements.class);
        this.retentionMs = Math.max(MIN_RETENTION.toMillis(), options.tombstoneRetention().toMillis());
        this.reaperBatch = options.reaperBatch();
        long every = options.reaperInterval().toMillis();
        reaper.scheduleWithFixedDelay(this::reap, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public void save(BulkOperation op) {
        ArchiveCalls.call("save bulk operation " + op.id(), () -> {
            statements.saveOperation(op.id(), op.kind().name(), op.filter(), op.state().name(), op.total(), op.done(),
                    op.failed(), op.startedBy(), op.createdAt(), op.updatedAt(), op.cancelRequested(), op.lastError(),
                    op.tenant(), retentionMs);
            return null;
        });
    }

    @Override
    public Optional<BulkOperation> report(BulkOperation progress) {
        return ArchiveCalls.call("report the progress of bulk operation " + progress.id(), () -> statements.reportProgress(progress.id(),
                progress.done(), progress.failed(), progress.lastError(), progress.updatedAt(),
                progress.state().name(), retentionMs));
    }

    @Override
    public Optional<BulkOperation> requestCancel(String id, String tenant) {
        return ArchiveCalls.call("cancel bulk operation " + id, () -> statements.requestCancel(id, tenant));
    }

    @Override
    public Optional<BulkOperation> operation(String id, String tenant) {
        return ArchiveCalls.call("read bulk operation " + id, () -> statements.operation(id, tenant));
    }

    @Override
    public List<BulkOperation> operations(int limit, String tenant) {
        checkLimit(limit);
        return ArchiveCalls.call("list bulk operations", () -> tenant == null ? statements.operations(limit)
                : statements.operationsOfTenant(tenant, limit));
    }

    @Override
    public void audit(AuditEntry e) {
        ArchiveCalls.call("append to the audit log", () -> {
            statements.audit(e.id(), e.at(), e.actor(), e.action(), e.target(), e.count(), e.detail(), e.tenant(),
                    retentionMs);
            return null;
        });
    }

    @Override
    public List<AuditEntry> auditLog(int limit, String beforeId, String tenant) {
        checkLimit(limit);
        if (beforeId == null) {
            return ArchiveCalls.call("read the audit log", () -> tenant == null ? statements.auditLog(limit)
                    : statements.auditLogOfTenant(tenant, limit));
        }
        long beforeAt = ArchiveCalls.call("read the audit log", () -> statements.auditAt(beforeId, tenant)).orElseThrow(() ->
                new IllegalArgumentException("there is no audit entry " + beforeId + " to page from (it may have"
                        + " expired); start again from the newest entries"));
        return ArchiveCalls.call("read the audit log", () -> tenant == null
                ? statements.auditLogBefore(beforeAt, beforeId, limit)
                : statements.auditLogOfTenantBefore(tenant, beforeAt, beforeId, limit));
    }

    // ---------------------------------------------------------------- reaper

    /**
     * One reaper pass, on the archive's reaper thread: operations and audit entries past their expiry by the
     * database's clock, at most {@link PostgresArchiveOptions#REAPER_STATEMENTS_PER_PASS} batches of each. A failed
     * pass is retried at the next one.
     */
    void reap() {
        try {
            drain(() -> statements.reapOperations(null, reaperBatch), PostgresArchiveOptions.REAPER_STATEMENTS_PER_PASS);
            drain(() -> statements.reapAudit(null, reaperBatch), PostgresArchiveOptions.REAPER_STATEMENTS_PER_PASS);
        } catch (RuntimeException e) {
            LOG.debug("operator log reaper pass failed, retried at the next one: {}", e.toString());
        }
    }

    /**
     * What the reaper does, to the end and as if the time were {@code nowMs}. For tests and tools.
     *
     * @return how many rows were dropped
     */
    long expire(long nowMs) {
        return ArchiveCalls.call("drop operations and audit entries past their retention", () ->
                drain(() -> statements.reapOperations(nowMs, reaperBatch), Integer.MAX_VALUE)
                        + (long) drain(() -> statements.reapAudit(nowMs, reaperBatch), Integer.MAX_VALUE));
    }

    private int drain(IntSupplier batch, int maxStatements) {
        int total = 0;
        for (int i = 0; i < maxStatements; i++) {
            int n = batch.getAsInt();
            total += n;
            if (n < reaperBatch) {
                break;
            }
        }
        return total;
    }

    // ---------------------------------------------------------------- helpers

    private static void checkLimit(int limit) {
        if (limit < 1 || limit > DeadLetterQuery.MAX_LIMIT) {
            throw new IllegalArgumentException("limit is " + limit + "; use 1 to " + DeadLetterQuery.MAX_LIMIT);
        }
    }
}
