package io.delayq.core;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The storage SPI: scheduling and delivery state of jobs. Methods are the transitions of {@link JobState}; batch forms
 * come first because the engine's hot paths are batched.
 *
 * <p>Contract every implementation holds (and {@code JobStoreContract} in core's test-jar proves):
 * <ul>
 *   <li>The store's clock is the only clock: run times from a delay, due checks and lease deadlines are all
 *       taken from it, so a skewed service host cannot run a job early or steal a lease.</li>
 *   <li>A job is never handed out before its run time, and is held by at most one lease at a time.</li>
 *   <li>Every lease has a fresh token; ack, nack and extend with any other token answer
 *       {@link StoreStatus#STALE_LEASE} and change nothing.</li>
 *   <li>A job accepted by {@link #enqueue} is not lost: it ends {@link JobState#SUCCEEDED}, {@link JobState#CANCELLED},
 *       or {@link JobState#DEAD} with an outbox entry.</li>
 *   <li>Each operation costs O(log N) in the size of the topic, or O(batch); nothing scans all jobs.</li>
 * </ul>
 * Failures to reach the backend surface as {@link StoreException} with {@link StoreStatus#UNAVAILABLE}.
 */
public interface JobStore extends AutoCloseable {

    /**
     * Schedules jobs. Idempotent per topic and id: the same id with the same {@link NewJob#fingerprint()} answers the
     * existing job; with another fingerprint, {@link StoreStatus#CONFLICT}. A finished job still remembered by the
     * store counts as existing.
     *
     * @return one result per job, in order
     */
    List<EnqueueResult> enqueue(List<NewJob> jobs);

    default EnqueueResult enqueue(NewJob job) {
        return enqueue(List.of(job)).get(0);
    }

    /** The job in any state, while the store remembers it (finished jobs for a retention period). */
    Optional<Job> find(JobRef ref);

    /**
     * Cancels a scheduled or leased job (a leased job's token goes stale; its in-flight attempt is not retried).
     *
     * @throws StoreException {@link StoreStatus#NOT_FOUND}, or {@link StoreStatus#NOT_IN_STATE} when it has finished
     */
    Job cancel(JobRef ref);

    /**
     * Moves a scheduled or leased job to a new run time (a leased job's token goes stale). Exactly one of the two
     * arguments is non-null.
     *
     * @throws StoreException {@link StoreStatus#NOT_FOUND}, or {@link StoreStatus#NOT_IN_STATE} when it has finished
     */
    Job reschedule(JobRef ref, Long delayMs, Long runAtMs);

    /**
     * Leases up to {@code max} due jobs of one topic and delivery lane, earliest run time first. Each lease lasts the
     * job's own {@code timeoutMs}, or {@code defaultLeaseMs}; its attempt number is one more than before.
     */
    ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs);

    /** Marks attempts successful. @return one status per lease: OK, STALE_LEASE or NOT_FOUND */
    List<StoreStatus> ack(List<LeaseRef> leases);

    /**
     * Records a failed attempt: the job is scheduled again after {@link Failure#retryDelayMs()}, or becomes
     * {@link JobState#DEAD} and goes to the outbox when the failure says so.
     *
     * @return OK, STALE_LEASE or NOT_FOUND
     */
    StoreStatus nack(LeaseRef lease, Failure failure);

    /**
     * Extends a lease to {@code leaseMs} from now.
     *
     * @return the new deadline, epoch ms
     * @throws StoreException {@link StoreStatus#STALE_LEASE} or {@link StoreStatus#NOT_FOUND}
     */
    long extend(LeaseRef lease, long leaseMs);

    /**
     * Takes back up to {@code max} leases of the topic whose deadline has passed. Each counts as a failed attempt:
     * the job is due again at once, or dead when it has no attempts left.
     *
     * @return how many leases were taken back
     */
    int expireLeases(String topic, int max);

    /** The earliest lease deadline of the topic, epoch ms, or {@code -1} when nothing is leased. */
    long nextLeaseDeadline(String topic);

    /** The earliest run time of the topic's scheduled jobs in that lane, epoch ms, or {@code -1}. */
    long nextDueAt(String topic, Delivery lane);

    /** Every topic that has ever had a job. */
    Set<String> topics();

    TopicStats stats(String topic);

    /** The topic's settings; {@link TopicSettings#empty()} when none were stored. */
    TopicSettings settings(String topic);

    void putSettings(String topic, TopicSettings settings);

    /**
     * Registers for notifications from every instance sharing this store.
     *
     * @return closing it unregisters
     */
    AutoCloseable subscribe(StoreListener listener);

    /** Sends a broadcast job to the {@link StoreListener#onBroadcast} of every subscribed instance. */
    void publishBroadcast(Job job);

    /** Up to {@code max} finished jobs waiting for the archive, oldest first. */
    List<OutboxEntry> readOutbox(int max);

    /** Removes outbox entries the archive has durably written. */
    void deleteOutbox(List<OutboxEntry> entries);

    /** How many finished jobs wait in the outbox. */
    long outboxSize();

    /** The store's clock, epoch ms. */
    long now();

    @Override
    void close();
}
