package io.delayq.service.breaker;

import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.JobStore;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * When a circuit closes, releases from its origin's held set the jobs that are no longer held: cancelled, finished,
 * gone, or leased again (issue 26, finding 7). A held job that never comes back (cancelled while held) would otherwise
 * stay counted, and the release after the close would pace every new job to the origin for it. Each job of the set is
 * read once from the job store, at most {@value #MAX_CHECKED} per close, on the breaker's thread; releasing is
 * idempotent, so a job released here and by the instance that attempts it is released once.
 */
final class HeldCheck {
    private static final Logger LOG = LoggerFactory.getLogger(HeldCheck.class);
    static final int MAX_CHECKED = 10_000;
    private static final int BATCH = 500;

    private final JobStore store;
    private final CircuitBreakers circuits;
    private final HeldCounts held;

    HeldCheck(JobStore store, CircuitBreakers circuits, HeldCounts held) {
        this.store = store;
        this.circuits = circuits;
        this.held = held;
    }

    /** Runs on the breaker's thread, right after the store recorded the close; updates the view with the result. */
    void releaseGone(String origin, OriginView view) {
        held.flush(circuits); // this instance's holds and releases first, so the set is as complete as it can be
        List<JobRef> members = circuits.heldJobs(origin, MAX_CHECKED);
        List<JobRef> gone = new ArrayList<>();
        for (JobRef ref : members) {
            Optional<Job> job = store.find(ref);
            if (job.isEmpty() || job.get().state() != JobState.SCHEDULED || !CallbackBreaker.lastEntryHeld(job.get())) {
                gone.add(ref);
            }
        }
        for (int from = 0; from < gone.size(); from += BATCH) {
            circuits.updateHeld(origin, List.of(), gone.subList(from, Math.min(gone.size(), from + BATCH)));
        }
        if (!gone.isEmpty()) {
            OriginCircuit now = circuits.circuit(origin);
            view.update(now);
            LOG.info("circuit breaker: {} closed; {} of the {} jobs counted held for it are no longer held"
                    + " (cancelled, finished or leased again), {} still are", origin, gone.size(), members.size(),
                    now.heldJobs());
        }
    }
}
