package io.delayq.core;

/**
 * What {@link JobStore#enqueue} did with one job.
 *
 * @param status {@link StoreStatus#OK} when it was created now or already existed with the same content,
 *               {@link StoreStatus#CONFLICT} when the id is taken by different content
 * @param created whether this call created it (false for an idempotent repeat or a conflict)
 * @param job    the job as stored (the existing one for a repeat or a conflict)
 */
public record EnqueueResult(StoreStatus status, boolean created, Job job) {
}
