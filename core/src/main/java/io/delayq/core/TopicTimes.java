package io.delayq.core;

/**
 * When a topic next needs the delivery engine: the earliest run time of each lane's scheduled jobs and the earliest
 * deadline of its leases, epoch ms, {@code -1} for none — what {@link JobStore#nextDueAt} and
 * {@link JobStore#nextLeaseDeadline} answer, read for many topics at once by {@link JobStore#times}.
 */
public record TopicTimes(String topic, long pushDueAt, long pullDueAt, long leaseDeadline) {

    /** A topic with nothing scheduled and nothing leased. */
    public static TopicTimes none(String topic) {
        return new TopicTimes(topic, -1, -1, -1);
    }

    /** The earliest run time of the lane's scheduled jobs, or {@code -1}. */
    public long dueAt(Delivery lane) {
        return lane == Delivery.PUSH ? pushDueAt : pullDueAt;
    }
}
