package io.delayq.core;

/**
 * A finished job waiting in the store's outbox for the archive.
 *
 * @param entryId the store's id of the entry, passed back to {@link JobStore#deleteOutbox}
 * @param job     the job in its final state ({@link JobState#DEAD} or {@link JobState#SUCCEEDED})
 */
public record OutboxEntry(String entryId, Job job) {
}
