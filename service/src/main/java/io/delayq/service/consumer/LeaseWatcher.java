package io.delayq.service.consumer;

/**
 * Told when consumers were handed leases, so that whoever takes back expired leases (the delivery engine) arms a
 * timer for them instead of finding them at its next safety sweep: a consumer that crashes holding a lease gets
 * its job redelivered when the lease ends, not up to a sweep interval later.
 */
@FunctionalInterface
public interface LeaseWatcher {
    /** Nobody to tell (tests without a delivery engine). */
    LeaseWatcher NONE = (topic, deadline) -> { };

    /**
     * @param topic                the topic of the leases
     * @param earliestDeadlineMs   the earliest of their deadlines, by the store's clock (epoch ms)
     */
    void leased(String topic, long earliestDeadlineMs);
}
