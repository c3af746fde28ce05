package io.delayq.service.bulk;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.archive.BulkOperation;
import io.delayq.service.api.JobView;

import java.util.List;
import java.util.Locale;

/**
 * A bulk operation on the wire. {@code state} is {@code running}, {@code done}, {@code cancelled}, {@code failed}, or
 * {@code stalled}: running, but its instance has not reported progress for 30 s (it stopped, or cannot reach the
 * archive). {@code cancellable} says whether a cancel would be accepted now: a running replay or operation on jobs not
 * asked to stop yet (a purge cannot stop half-way). {@code tenant}: the tenant whose letters or jobs it works through
 * (absent: an operator's). {@code target}: {@code dead-letters} or {@code jobs}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BulkOperationView(String id, String kind, String filter, String state, long total, long done,
                                long failed, String startedBy, String createdAt, String updatedAt,
                                boolean cancelRequested, boolean cancellable, String lastError, String tenant,
                                String target) {
    static BulkOperationView of(BulkOperation op, long nowMs) {
        String state = op.state() == BulkOperation.State.RUNNING
                && nowMs - op.updatedAt() > BulkOperation.STALE_AFTER_MS ? "stalled"
                : op.state().name().toLowerCase(Locale.ROOT);
        return new BulkOperationView(op.id(), op.kind().wireName(), op.filter(), state,
                op.total(), op.done(), op.failed(), op.startedBy(), JobView.time(op.createdAt()),
                JobView.time(op.updatedAt()), op.cancelRequested(), cancellable(op), op.lastError(),
                op.tenant(), op.kind().onJobs() ? BulkOperationsResource.JOBS : BulkOperationsResource.DEAD_LETTERS);
    }

    /**
     * Whether a cancel can stop it: a replay, or an operation on jobs, stops at its next batch; a purge is one archive
     * call.
     */
    static boolean cancellable(BulkOperation op) {
        return !op.state().finished() && op.kind() != BulkOperation.Kind.PURGE && !op.cancelRequested();
    }

    /** {@code GET /v1/admin/bulk-operations}: newest first. */
    public record Operations(List<BulkOperationView> items) {
    }

    /** The answer of a dry run. */
    public record DryRun(long matching) {
    }
}
