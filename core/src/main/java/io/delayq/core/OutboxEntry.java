package io.delayq.core;

import java.util.Objects;

/**
 * A finished job waiting in the store's outbox for the archive: readable (with its {@link #job()}), or
 * {@link #unreadable()} when this code cannot decode what the store holds (a record written by an incompatible version,
 * or damaged). An unreadable entry is handed out rather than thrown, so that one bad entry never stops the others;
 * the archiver moves it to the store's quarantine ({@link JobStore#quarantineOutbox}).
 *
 * @param entryId    the store's id of the entry, passed back to {@link JobStore#deleteOutbox} or
 *                   {@link JobStore#quarantineOutbox}
 * @param job        the job in its final state ({@link JobState#DEAD} or {@link JobState#SUCCEEDED}); {@code null}
 *                   when unreadable
 * @param unreadable why the entry could not be decoded, and its raw text; {@code null} when readable
 */
public record OutboxEntry(String entryId, Job job, Unreadable unreadable) {

    public OutboxEntry {
        Objects.requireNonNull(entryId, "entryId");
        if ((job == null) == (unreadable == null)) {
            throw new IllegalArgumentException("an outbox entry has either a job or the reason it is unreadable");
        }
    }

    public OutboxEntry(String entryId, Job job) {
        this(entryId, Objects.requireNonNull(job, "job"), null);
    }

    /** An entry the store holds but cannot decode. */
    public static OutboxEntry unreadable(String entryId, JobRef ref, String raw, String reason) {
        return new OutboxEntry(entryId, null, new Unreadable(ref, raw, reason));
    }

    public boolean isReadable() {
        return job != null;
    }

    /** The job's topic and id, known even when the rest of the entry is unreadable. */
    public JobRef ref() {
        return job != null ? job.ref() : unreadable.ref();
    }

    /**
     * What is known of an entry that cannot be decoded.
     *
     * @param ref    the job's topic and id
     * @param raw    the entry as stored (for an operator to repair it), never {@code null}
     * @param reason why it could not be decoded
     */
    public record Unreadable(JobRef ref, String raw, String reason) {
        public Unreadable {
            Objects.requireNonNull(ref, "ref");
            raw = raw == null ? "" : raw;
            Objects.requireNonNull(reason, "reason");
        }
    }
}
