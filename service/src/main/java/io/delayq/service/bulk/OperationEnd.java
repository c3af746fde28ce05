package io.delayq.service.bulk;

import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.OperatorLog;
import io.delayq.service.audit.AuditTrail;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * How a bulk operation's end is recorded, whatever it works through (dead letters, {@link BulkOperationRunner}, or
 * jobs, {@link JobOperationRunner}): its final state in the operator log and the audit entry {@code bulk.finish}
 * saying what it finally did ({@code bulk.start} recorded only the dry run's count), by who started it, on its
 * filter, in its tenant's log (operators' only for an operator's operation).
 */
final class OperationEnd {
    private static final Logger LOG = LoggerFactory.getLogger(OperationEnd.class);

    private final AuditTrail audit;
    private final LongSupplier clock;

    OperationEnd(AuditTrail audit, LongSupplier clock) {
        this.audit = audit;
        this.clock = clock;
    }

    /** The operation failed after {@code done} items: recorded FAILED with why (or, if even that fails, logged). */
    void failed(OperatorLog log, BulkOperation op, long done, long failed, String why) {
        BulkOperation failedOp = op.progressed(done, failed, why, clock.getAsLong());
        try {
            log.report(failedOp.finished(BulkOperation.State.FAILED, clock.getAsLong()));
        } catch (RuntimeException e) {
            LOG.warn("could not record that bulk operation {} failed ({}); it shows as stalled", op.id(), why);
        }
        audited(failedOp, BulkOperation.State.FAILED);
    }

    /** The audit entry of the operation's end. */
    void audited(BulkOperation op, BulkOperation.State end) {
        audit.record(op.startedBy(), op.tenant(), "bulk.finish", op.filter(), op.done(), op.kind().wireName() + " "
                + op.id() + ": " + end.name().toLowerCase(Locale.ROOT) + ", " + op.done() + " done, " + op.failed()
                + " failed (" + op.total() + " matched at the start)" + (op.lastError() == null ? ""
                : "; last error: " + op.lastError()));
    }
}
