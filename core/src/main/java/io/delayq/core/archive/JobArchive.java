package io.delayq.core.archive;

import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.OutboxEntry;

import java.util.List;
import java.util.Optional;

/**
 * The durable archive of finished jobs: dead letters (always) and succeeded jobs (per-topic opt-in). Fed from the
 * store's outbox by the archiver; browsed and replayed by operators.
 */
public interface JobArchive extends AutoCloseable {

    /**
     * Writes finished jobs. Idempotent: writing the same entry twice leaves one record. Returns only once the archive
     * has durably accepted every entry; throws otherwise, and the caller keeps them in the outbox.
     */
    void write(List<OutboxEntry> entries);

    /** The most recent archived record of a job, once it has left the store. */
    Optional<Job> find(JobRef ref);

    @Override
    void close();
}
