package io.delayq.postgres.archive;

import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.BulkOperation;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Optional;

/**
 * The operator log's statements, one each, in {@code io/delayq/postgres/archive/sql/<name>.sql} beside the
 * archive's ({@link ArchiveStatements}); each file's header names its binds, what it returns and the index it uses.
 * Times are epoch ms.
 */
interface OperatorLogStatements {

    @SqlUpdate("save_operation")
    void saveOperation(@Bind("id") String id, @Bind("kind") String kind, @Bind("filter") String filter,
              @Bind("state") String state, @Bind("total") long total, @Bind("done") long done,
              @Bind("failed") long failed, @Bind("startedBy") String startedBy, @Bind("createdAt") long createdAt,
              @Bind("updatedAt") long updatedAt, @Bind("cancelRequested") boolean cancelRequested,
              @Bind("lastError") String lastError, @Bind("tenant") String tenant,
              @Bind("retentionMs") long retentionMs);

    @SqlQuery("report_progress")
    Optional<BulkOperation> reportProgress(@Bind("id") String id, @Bind("done") long done, @Bind("failed") long failed,
                                   @Bind("lastError") String lastError, @Bind("updatedAt") long updatedAt,
                                   @Bind("state") String state, @Bind("retentionMs") long retentionMs);

    /** {@code tenant} null: an operator's cancel, of anyone's operation. */
    @SqlQuery("request_cancel")
    Optional<BulkOperation> requestCancel(@Bind("id") String id, @Bind("tenant") String tenant);

    /** {@code tenant} null: an operator's read, of anyone's operation. */
    @SqlQuery("operation")
    Optional<BulkOperation> operation(@Bind("id") String id, @Bind("tenant") String tenant);

    @SqlQuery("operations")
    List<BulkOperation> operations(@Bind("limit") int limit);

    @SqlQuery("operations_of_tenant")
    List<BulkOperation> operationsOfTenant(@Bind("tenant") String tenant, @Bind("limit") int limit);

    @SqlUpdate("audit")
    void audit(@Bind("id") String id, @Bind("at") long at, @Bind("actor") String actor,
               @Bind("action") String action, @Bind("target") String target, @Bind("count") long count,
               @Bind("detail") String detail, @Bind("tenant") String tenant, @Bind("retentionMs") long retentionMs);

    /** Epoch ms of the entry, empty when there is none of that id, or it is not the tenant's (null: anyone's). */
    @SqlQuery("audit_at")
    Optional<Long> auditAt(@Bind("id") String id, @Bind("tenant") String tenant);

    @SqlQuery("audit_log")
    List<AuditEntry> auditLog(@Bind("limit") int limit);

    @SqlQuery("audit_log_before")
    List<AuditEntry> auditLogBefore(@Bind("beforeAtMs") long beforeAtMs, @Bind("beforeId") String beforeId,
                                    @Bind("limit") int limit);

    @SqlQuery("audit_log_of_tenant")
    List<AuditEntry> auditLogOfTenant(@Bind("tenant") String tenant, @Bind("limit") int limit);

    @SqlQuery("audit_log_of_tenant_before")
    List<AuditEntry> auditLogOfTenantBefore(@Bind("tenant") String tenant, @Bind("beforeAtMs") long beforeAtMs,
                                            @Bind("beforeId") String beforeId, @Bind("limit") int limit);

    /** How many rows were dropped; {@code nowMs} null = the database's now. */
    @SqlUpdate("reap_operations")
    int reapOperations(@Bind("nowMs") Long nowMs, @Bind("batch") int batch);

    @SqlUpdate("reap_audit")
    int reapAudit(@Bind("nowMs") Long nowMs, @Bind("batch") int batch);
}
