package io.delayq.service.jobs;

import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.JobArchive;

import java.util.Optional;

/**
 * Finds a job for {@code GET /v1/topics/{topic}/jobs/{id}}: in the store, else in the archive, so a finished job still
 * answers after the store has forgotten it (past its {@code finishedRetention}).
 *
 * <p>The archive is asked only when the store does not know the job. When the store does not know it and the archive
 * cannot be reached, the lookup fails with {@link StoreStatus#UNAVAILABLE} (the archive's
 * {@link io.delayq.core.StoreException} for an unreachable backend) rather than claim the job does not exist.
 */
public final class JobLookup {
    private final JobStore store;
    private final JobArchive archive;

    public JobLookup(JobStore store, JobArchive archive) {
        this.store = store;
        this.archive = archive;
    }

    /** The job as the store has it, else its archived record, else empty. */
    public Optional<Job> find(JobRef ref) {
        Optional<Job> live = store.find(ref);
        return live.isPresent() ? live : archive.find(ref);
    }
}
