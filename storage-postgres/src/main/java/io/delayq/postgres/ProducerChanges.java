package io.delayq.postgres;

import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.postgres.Rows.Targeted;

import java.util.Optional;

/** What a producer may do to a job it scheduled, while it is scheduled or leased: cancel it, or move its run time. */
final class ProducerChanges {
    private final JobTransitions transitions;
    private final PostgresStoreOptions options;

    ProducerChanges(JobTransitions transitions, PostgresStoreOptions options) {
        this.transitions = transitions;
        this.options = options;
    }

    Job cancel(JobRef ref) {
        return changed(ref, "cancelled", PostgresCalls.call("cancel", () -> transitions.cancel(ref.topic(), ref.id())));
    }

    Job reschedule(JobRef ref, Long delayMs, Long runAtMs) {
        if ((delayMs == null) == (runAtMs == null)) {
            throw new IllegalArgumentException("exactly one of delayMs and runAtMs must be set");
        }
        return changed(ref, "rescheduled",
                PostgresCalls.call("reschedule", () -> transitions.reschedule(ref.topic(), ref.id(), delayMs, runAtMs,
                        options.historySize())));
    }

    /** The job a cancel or reschedule changed, or the StoreException saying why it did not. */
    private static Job changed(JobRef ref, String operation, Optional<Targeted> answer) {
        if (answer.isEmpty()) {
            StoreException.check(StoreStatus.NOT_FOUND, ref, operation);
        }
        if (answer.get().job() == null) {
            StoreException.check(StoreStatus.NOT_IN_STATE, ref, operation);
        }
        return answer.get().job();
    }
}
