package io.delayq.service.consumer;

import io.delayq.core.Delivery;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreException;
import io.delayq.core.TopicSettings;
import io.delayq.core.ratelimit.Rate;
import io.delayq.service.ratelimit.TopicPermits;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Takes due pull-lane jobs out of the store for one lease request: resolves the lease length, honours a paused
 * topic, makes an explicit {@code leaseMs} win over a job's own timeout, and tells the {@link LeaseWatcher} when the
 * leases end. A topic's {@code rateLimit} is taken from the same bucket as its push deliveries ({@link TopicPermits},
 * one store call before the reserve): no more jobs are leased than were granted, and with none granted the answer is
 * empty with the next permit's time as the topic's next run time, so a long poll waits for it.
 */
final class LeaseIssuer {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseIssuer.class);
    private final JobStore store;
    private final PolicyDefaults defaults;
    private final LeaseWatcher watcher;
    private final TopicPermits permits;

    private final PullActivity pulls;

    /**
     * @param pulls counts each lease's lateness, and each due job a reserve found expired
     *              ({@code delayq_jobs_expired_total})
     */
    LeaseIssuer(JobStore store, PolicyDefaults defaults, LeaseWatcher watcher, TopicPermits permits,
                PullActivity pulls) {
        this.pulls = pulls;
        this.store = store;
        this.defaults = defaults;
        this.watcher = watcher;
        this.permits = permits;
    }

    /**
     * Reserves up to {@code max} due jobs.
     *
     * @param leaseMs the consumer's lease length, or {@code null} for the job's / topic's / service's timeout
     * @return the leases, the topic's next run time and the store's clock; a paused topic grants nothing
     */
    ReserveResult issue(String topic, int max, Long leaseMs) {
        TopicSettings settings = store.settings(topic);
        if (settings.isPaused()) {
            return new ReserveResult(List.of(), -1L, store.now());
        }
        long length = leaseMs != null ? leaseMs : defaults.timeoutMs(null, settings);
        Long expiresAfter = settings.expiresAfterMs();
        long expiresAfterMs = expiresAfter == null ? 0 : expiresAfter;
        Rate rate = settings.rateLimit();
        if (rate == null) {
            return leased(topic, counted(topic, store.reserve(topic, Delivery.PULL, max, length, expiresAfterMs)), leaseMs);
        }
        TopicPermits.Taken taken = permits.take(topic, TopicPermits.Lane.PULL, rate, max);
        if (taken.granted() == 0) {
            long now = store.now();
            return new ReserveResult(List.of(), now + taken.retryAfterMs(), now);
        }
        ReserveResult result = counted(topic, store.reserve(topic, Delivery.PULL, taken.granted(), length, expiresAfterMs));
        permits.reserved(topic, TopicPermits.Lane.PULL, taken, result.leases().size());
        if (taken.limited() && result.leases().size() == taken.granted() && result.nextDueAt() >= 0) {
            // More may be due, but not before the next permit: that is when a long poll should look again.
            long nextPermit = result.now() + taken.retryAfterMs();
            result = new ReserveResult(result.leases(), Math.max(result.nextDueAt(), nextPermit), result.now());
        }
        return leased(topic, result, leaseMs);
    }

    /** The reserve's result, its expired jobs counted. */
    private ReserveResult counted(String topic, ReserveResult result) {
        pulls.expired(topic, result.expired());
        return result;
    }

    private ReserveResult leased(String topic, ReserveResult result, Long leaseMs) {
        pulls.leased(topic, result.leases(), result.now());
        if (leaseMs == null || result.leases().isEmpty()) {
            watch(topic, result.leases());
            return result;
        }
        // The store lets a job's own timeout win over the default it is given; the consumer who names a lease
        // length means it for every job it takes.
        List<Lease> leases = new ArrayList<>(result.leases().size());
        for (Lease lease : result.leases()) {
            Long own = lease.job().timeoutMs();
            if (own == null || own.longValue() == leaseMs) {
                leases.add(lease);
                continue;
            }
            try {
                leases.add(new Lease(lease.job(), lease.token(), store.extend(LeaseRef.of(lease), leaseMs)));
            } catch (StoreException e) {
                // The lease is still held with the job's own deadline; report that one rather than drop the job.
                leases.add(lease);
            }
        }
        watch(topic, leases);
        return new ReserveResult(leases, result.nextDueAt(), result.now());
    }

    /**
     * Gives leases nobody received back to the store, due now, without using up their attempts: a reschedule of a
     * leased job withdraws its attempt ({@link JobStore#reschedule}; the job's history notes the interrupted attempt).
     * A lease that cannot be given back (the store is unreachable) expires instead, which costs an attempt.
     */
    void giveBack(String topic, List<Lease> leases) {
        for (Lease lease : leases) {
            try {
                store.reschedule(lease.job().ref(), 0L, null);
            } catch (StoreException e) {
                LOG.warn("Lease of {} for a consumer that went away could not be given back ({}); it expires instead,"
                        + " which counts as an attempt", lease.ref(), e.getMessage());
            }
        }
        LOG.debug("gave back {} leases of topic {} whose consumer went away", leases.size(), topic);
    }

    private void watch(String topic, List<Lease> leases) {
        if (!leases.isEmpty()) {
            watcher.leased(topic, leases.stream().mapToLong(Lease::deadline).min().getAsLong());
        }
    }
}
