package io.delayq.core.archive;

import java.util.List;
import java.util.Optional;

/**
 * What operators did and are doing, kept beside the dead letters they act on: background {@link BulkOperation}s (so
 * every service instance sees their progress) and the {@link AuditEntry audit log}. An archive that keeps dead letters
 * for browsing has one ({@link JobArchive#operatorLog()}); its records are kept as long as the archive keeps dead
 * letters' tombstones, and at least 30 days.
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

    /** Sets {@code cancelRequested} on a running operation; returns it as stored afterwards, or empty if unknown. */
    Optional<BulkOperation> requestCancel(String id);

    Optional<BulkOperation> operation(String id);

    /** The newest operations first, at most {@code limit}. */
    List<BulkOperation> operations(int limit);

    /** Appends an entry. Throws when the archive cannot be reached. */
    void audit(AuditEntry entry);

    /**
     * Audit entries newest first (by {@code at}, then id), at most {@code limit}, older than the entry whose id is
     * {@code beforeId} when that is given (the next page).
     */
    List<AuditEntry> auditLog(int limit, String beforeId);
}
