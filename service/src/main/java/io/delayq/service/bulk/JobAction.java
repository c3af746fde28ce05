package io.delayq.service.bulk;

import io.delayq.core.Job;
import io.delayq.core.JobStore;
import io.delayq.core.archive.BulkOperation;

/**
 * What a bulk operation on jobs does to each listed job: cancel it, run it now, or move its run time to {@code runAt}
 * or by {@code shiftMs} from the run time it had when listed.
 */
record JobAction(BulkOperation.Kind kind, Long runAtMs, Long shiftMs) {

    void apply(JobStore store, Job job) {
        switch (kind) {
            case CANCEL -> store.cancel(job.ref());
            case RUN_NOW -> store.reschedule(job.ref(), 0L, null);
            case RESCHEDULE -> store.reschedule(job.ref(), null, runAtMs != null ? runAtMs : job.runAt() + shiftMs);
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
