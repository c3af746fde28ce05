package io.delayq.core;

/** A job and the lease token its holder presents with an ack, nack or extend. */
public record LeaseRef(JobRef job, LeaseToken token) {
    public static LeaseRef of(Lease lease) {
        return new LeaseRef(lease.ref(), lease.token());
    }
}
