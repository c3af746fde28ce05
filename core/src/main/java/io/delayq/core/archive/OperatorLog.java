package io.delayq.core.archive;

import java.util.List;
import java.util.Optional;

/**
 * What operators did and are doing, kept beside the dead letters they act on: background {@link BulkOperation}s (so
 * every service instance sees their progress) and the {@link AuditEntry audit log}. An archive that keeps dead letters
 * for browsing has one ({@link JobArchive#operatorLog()}); its records are kept as long as the archive keeps dead
 * letters' tombstones, and at least 30 days.
 *
 * <p>Tenants. Every operation and entry carries the tenant it belongs to ({@link BulkOperation#tenant()},
 * {@link AuditEntry#tenant()}; {@code null}: operators only). The reads take a {@code tenant}: {@code null} is an
 * operator's view (everything); a tenant's name reads only what belongs to that tenant, selected by the log's own
 * index on the tenant, never by reading everything and filtering. An id that exists but belongs to another tenant is
 * answered as unknown, so that a tenant learns nothing of others' records. The methods without a {@code tenant} are an
 * operator's view.
 */
public interface OperatorLog {

    /** Writes the operation whole (insert or replace by id). Throws when the archive cannot be reached. */
    void save(BulkOperation operation);

    /**
     * Replaces a running operation's progress ({@code done}, {@code failed}, {@code lastError}, {@code updatedAt}) and,
     * when {@code state} is finished, its state, without touching {@code cancelRequested} (which another instance may
     * have set meanwhile).
     *
     * @return the operation as stored afterwards (its {@code cancelRequested} tells the runner to stop), or empty
     *         when it does not exist
     */
    Optional<BulkOperation> report(BulkOperation progress);

    /**
     * Sets {@code cancelRequested} on a running operation of {@code tenant} ({@code null}: any operation, an
     * operator's cancel); returns it as stored afterwards, or empty if unknown (or another tenant's, untouched).
     */
    Optional<BulkOperation> requestCancel(String id, String tenant);

    /** An operator's cancel: {@link #requestCancel(String, String)} of any operation. */
    default Optional<BulkOperation> requestCancel(String id) {
        return requestCancel(id, null);
    }

    /** The operation, if it exists and belongs to {@code tenant} ({@code null}: whoever's it is). */
    Optional<BulkOperation> operation(String id, String tenant);

    /** An operator's read: {@link #operation(String, String)} of any operation. */
    default Optional<BulkOperation> operation(String id) {
        return operation(id, null);
    }

    /** The newest operations of {@code tenant} ({@code null}: everyone's) first, at most {@code limit}. */
    List<BulkOperation> operations(int limit, String tenant);

    /** An operator's list: {@link #operations(int, String)} of everyone's. */
    default List<BulkOperation> operations(int limit) {
        return operations(limit, null);
    }

    /** Appends an entry. Throws when the archive cannot be reached. */
    void audit(AuditEntry entry);

    /**
     * Audit entries of {@code tenant} ({@code null}: everyone's) newest first (by {@code at}, then id), at most
     * {@code limit}, older than the entry whose id is {@code beforeId} when that is given (the next page). A
     * {@code beforeId} that is not one of the tenant's entries is refused as unknown
     * ({@link IllegalArgumentException}).
     */
    List<AuditEntry> auditLog(int limit, String beforeId, String tenant);

    /** An operator's read: {@link #auditLog(int, String, String)} of everyone's entries. */
    default List<AuditEntry> auditLog(int limit, String beforeId) {
        return auditLog(limit, beforeId, null);
    }
}
