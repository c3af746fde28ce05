package io.delayq.service.admin;

import io.delayq.core.Delivery;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.OutboxEntry;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.delayq.core.TopicStats;
import io.delayq.core.archive.JobArchive;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link JobStore} whose {@link #find} also looks in the archive, so {@code GET /v1/topics/{topic}/jobs/{id}}
 * still answers for a finished job after the store has forgotten it. Everything else goes to the store unchanged.
 * When the store does not know the job and the archive cannot be reached, {@link #find} fails with
 * {@link StoreStatus#UNAVAILABLE} rather than claim the job does not exist.
 */
public final class ArchiveFallbackJobStore implements JobStore {
    private final JobStore store;
    private final JobArchive archive;

    public ArchiveFallbackJobStore(JobStore store, JobArchive archive) {
        this.store = store;
        this.archive = archive;
    }

    @Override
    public Optional<Job> find(JobRef ref) {
        Optional<Job> live = store.find(ref);
        return live.isPresent() ? live : archive.find(ref);
    }

    @Override
    public List<EnqueueResult> enqueue(List<NewJob> jobs) {
        return store.enqueue(jobs);
    }

    @Override
    public Job cancel(JobRef ref) {
        return store.cancel(ref);
    }

    @Override
    public Job reschedule(JobRef ref, Long delayMs, Long runAtMs) {
        return store.reschedule(ref, delayMs, runAtMs);
    }

    @Override
    public ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs) {
        return store.reserve(topic, lane, max, defaultLeaseMs);
    }

    @Override
    public List<StoreStatus> ack(List<LeaseRef> leases) {
        return store.ack(leases);
    }

    @Override
    public StoreStatus nack(LeaseRef lease, Failure failure) {
        return store.nack(lease, failure);
    }

    @Override
    public long extend(LeaseRef lease, long leaseMs) {
        return store.extend(lease, leaseMs);
    }

    @Override
    public int expireLeases(String topic, int max) {
        return store.expireLeases(topic, max);
    }

    @Override
    public long nextLeaseDeadline(String topic) {
        return store.nextLeaseDeadline(topic);
    }

    @Override
    public long nextDueAt(String topic, Delivery lane) {
        return store.nextDueAt(topic, lane);
    }

    @Override
    public Set<String> topics() {
        return store.topics();
    }

    @Override
    public TopicStats stats(String topic) {
        return store.stats(topic);
    }

    @Override
    public TopicSettings settings(String topic) {
        return store.settings(topic);
    }

    @Override
    public void putSettings(String topic, TopicSettings settings) {
        store.putSettings(topic, settings);
    }

    @Override
    public AutoCloseable subscribe(StoreListener listener) {
        return store.subscribe(listener);
    }

    @Override
    public void publishBroadcast(Job job) {
        store.publishBroadcast(job);
    }

    @Override
    public List<OutboxEntry> readOutbox(int max) {
        return store.readOutbox(max);
    }

    @Override
    public void deleteOutbox(List<OutboxEntry> entries) {
        store.deleteOutbox(entries);
    }

    @Override
    public long outboxSize() {
        return store.outboxSize();
    }

    @Override
    public long now() {
        return store.now();
    }

    /** The store and the archive have their own lifecycles; closing this view closes neither. */
    @Override
    public void close() {
    }
}
