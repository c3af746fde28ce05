package io.delayq.core;

/**
 * A job handed to one consumer for one attempt. Only the holder of {@code token} may ack, nack or extend it, and
 * only until {@code deadline}; after that the store takes it back.
 *
 * @param job      the job, in state {@link JobState#LEASED}, with {@code attempts} = this attempt's number
 * @param token    the lease token; a new one for every lease, unrelated to any other (see {@link LeaseToken})
 * @param deadline when the lease expires, epoch ms by the store's clock
 */
public record Lease(Job job, LeaseToken token, long deadline) {
    public JobRef ref() {
        return job.ref();
    }

    public int attempt() {
        return job.attempts();
    }
}
