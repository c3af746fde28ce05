package io.delayq.service.bulk;

import io.delayq.core.Job;
import io.delayq.core.JobStore;
import io.delayq.core.archive.BulkOperation;
import io.delayq.service.jobs.ExpiresAt;

/**
 * What a bulk operation on jobs does to each listed job: cancel it, run it now, or move its run time to {@code runAt}
 * or by {@code shiftMs} from the run time it had when listed. A job that the move would take past its own
 * {@code expiresAt} is refused ({@link IllegalArgumentException}) and left as it was.
 */
record JobAction(BulkOperation.Kind kind, Long runAtMs, Long shiftMs) {

    void apply(JobStore store, Job job) {
        switch (kind) {
            case CANCEL -> store.cancel(job.ref());
            case RUN_NOW -> store.reschedule(job.ref(), 0L, null);
            case RESCHEDULE -> {
                long to = runAtMs != null ? runAtMs : job.runAt() + shiftMs;
                ExpiresAt.refuseMoveBeyond(job.expiresAt(), to); // counted as failed, named in the operation's error
                store.reschedule(job.ref(), null, to);
            }
            default -> throw new IllegalStateException(kind + " is not an operation on jobs");
        }
    }

    /**
     * Whether a job it acted on may come up again later in the same listing (moved to a later position): those are
     * remembered, so that no job is moved twice by one operation. A cancelled job leaves the pending listing.
     */
    boolean moves() {
        return kind != BulkOperation.Kind.CANCEL;
    }
}
