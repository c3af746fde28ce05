package io.delayq.service.tenants;

import io.delayq.core.NewJob;
import io.delayq.core.ratelimit.Grant;
import io.delayq.core.ratelimit.Rate;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.service.errors.QuotaExceededException;
import io.delayq.service.jobs.EnqueueGate;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Enforces the quotas of the tenant owning a topic on every enqueue, across instances, with state in the store:
 *
 * <ul>
 *   <li>{@code maxPayloadBytes}: each job alone (413);</li>
 *   <li>{@code maxTopics}: a topic the tenant has not used yet is refused while the store holds that many of its
 *       topics (read from the store whenever a topic new to this instance's view comes);</li>
 *   <li>{@code maxPendingJobs}: the tenant's topics' scheduled and leased counters added up, read from the store at
 *       most {@value #PENDING_READ_MS} ms ago, plus what this instance wrote since and what it has admitted and not yet
 *       written (in flight);</li>
 *   <li>{@code enqueuePerSecond}/{@code enqueueBurst}: a token bucket in the store
 *       ({@link RateLimiters}, key {@code tenant:<name>:enqueue}), one atomic take per request.</li>
 * </ul>
 *
 * Consistency (docs/tenants.md): the bucket is exact across instances. In the second half of the quota the pending
 * count is read from the store at every admission, and this instance's own admissions in flight are added to it, so
 * it can be overshot only by admissions in flight at the same moment on other instances (the jobs of the requests
 * they are writing; with an enqueue rate, never more than the bucket grants); the topic count by the topics started
 * at the same moment on other instances.
 */
public final class TenantQuotaGate implements EnqueueGate {
    static final long PENDING_READ_MS = 250;
    /** Retry-After of a full pending quota: jobs leave as they are delivered, typically within seconds. */
    static final long PENDING_RETRY_AFTER_S = 1;
    /** Retry-After of the topic quota: topics do not go away by waiting, an operator has to act. */
    static final long TOPICS_RETRY_AFTER_S = 60;

    private final TenantDirectory directory;
    private final TenantUse use;
    private final RateLimiters buckets;
    private final Map<String, Set<String>> topicsSeen = new ConcurrentHashMap<>();
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final QuotaRefusals refusals;

    /**
     * One tenant's pending jobs as this instance knows them, guarded by itself: the store's count at the last read,
     * the jobs this instance wrote since, and those it admitted and is writing. A write settles under the same lock
     * as a read, so a job is counted by the read or by {@code writtenSince}, never by neither.
     */
    private static final class Pending {
        long stored;
        long writtenSince;
        long inFlight;
        long readAtNanos;

        long count() {
            return stored + writtenSince + inFlight;
        }
    }

    public TenantQuotaGate(TenantDirectory directory, TenantUse use, RateLimiters buckets) {
        this(directory, use, buckets, new QuotaRefusals());
    }

    public TenantQuotaGate(TenantDirectory directory, TenantUse use, RateLimiters buckets, QuotaRefusals refusals) {
        this.directory = directory;
        this.use = use;
        this.buckets = buckets;
        this.refusals = refusals;
    }

    @Override
    public void check(String topic, NewJob job) {
        try {
            checkPayload(topic, job);
        } catch (QuotaExceededException refused) {
            refusals.count(refused);
            throw refused;
        }
    }

    @Override
    public Admission admit(String topic, List<NewJob> jobs) {
        try {
            Admission admission = admitJobs(topic, jobs);
            if (admission.refusal() != null) {
                refusals.count(admission.refusal());
            }
            return admission;
        } catch (QuotaExceededException refused) {
            refusals.count(refused);
            throw refused;
        }
    }

    /**
     * A new schedule counts as one pending job for good (until it is deleted): it is admitted as one job would be by
     * {@code maxTopics} and {@code maxPendingJobs}, not by the enqueue rate (nothing is enqueued now; its fires are
     * enqueued by the schedule runner, admitted with the schedule). Counted in flight until {@link #settled}.
     */
    @Override
    public void admitSchedule(String topic) {
        Tenant tenant = directory.tenantOf(topic);
        if (tenant == null) {
            return;
        }
        try {
            TenantQuotas q = tenant.quotas();
            if (q.maxTopics() != null) {
                checkTopics(tenant, topic, q.maxTopics());
            }
            if (q.maxPendingJobs() != null) {
                Pending held = pending.computeIfAbsent(tenant.name(), n -> new Pending());
                synchronized (held) {
                    refreshIfNeeded(tenant, topic, held, 1, q.maxPendingJobs());
                    long before = held.count();
                    if (before >= q.maxPendingJobs()) {
                        throw pendingFull(tenant, q.maxPendingJobs(), before);
                    }
                    held.inFlight += 1;
                }
            }
        } catch (QuotaExceededException refused) {
            refusals.count(refused);
            throw refused;
        }
    }

    private void checkPayload(String topic, NewJob job) {
        Tenant tenant = directory.tenantOf(topic);
        if (tenant == null || tenant.quotas().maxPayloadBytes() == null) {
            return;
        }
        int max = tenant.quotas().maxPayloadBytes();
        int bytes = job.payload().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > max) {
            throw new QuotaExceededException(tenant.name(), "maxPayloadBytes", max, bytes, 413, 0,
                    "payload is " + bytes + " bytes; tenant " + tenant.name() + "'s quota maxPayloadBytes is " + max);
        }
    }

    private Admission admitJobs(String topic, List<NewJob> jobs) {
        Tenant tenant = directory.tenantOf(topic);
        if (tenant == null || jobs.isEmpty()) {
            return Admission.all(jobs.size());
        }
        TenantQuotas q = tenant.quotas();
        if (q.maxTopics() != null) {
            checkTopics(tenant, topic, q.maxTopics());
        }
        int admitted = jobs.size();
        QuotaExceededException refusal = null;
        Pending held = null;
        if (q.maxPendingJobs() != null) {
            held = pending.computeIfAbsent(tenant.name(), n -> new Pending());
            synchronized (held) {
                refreshIfNeeded(tenant, topic, held, admitted, q.maxPendingJobs());
                long before = held.count();
                long room = q.maxPendingJobs() - before;
                if (room <= 0) {
                    throw pendingFull(tenant, q.maxPendingJobs(), before);
                }
                if (room < admitted) {
                    admitted = (int) room;
                    refusal = pendingFull(tenant, q.maxPendingJobs(), q.maxPendingJobs());
                }
                held.inFlight += admitted;
            }
        }
        if (q.enqueuePerSecond() != null) {
            int burst = q.effectiveBurst();
            Grant grant;
            try {
                grant = buckets.take("tenant:" + tenant.name() + ":enqueue", new Rate(q.enqueuePerSecond(), burst),
                        admitted);
            } catch (RuntimeException e) {
                notWritten(held, admitted);
                throw e;
            }
            if (grant.granted() < admitted) {
                notWritten(held, admitted - grant.granted());
                QuotaExceededException rate = new QuotaExceededException(tenant.name(), "enqueuePerSecond",
                        q.enqueuePerSecond(), burst - grant.granted(), 429,
                        (long) Math.ceil(Math.max(1, grant.retryAfterMs()) / 1000.0),
                        "tenant " + tenant.name() + "'s quota enqueuePerSecond is " + q.enqueuePerSecond()
                                + " jobs/s with a burst of " + burst + "; " + grant.granted() + " of " + admitted
                                + " jobs admitted now, retry after " + grant.retryAfterMs() + " ms");
                if (grant.granted() == 0) {
                    throw rate;
                }
                admitted = grant.granted();
                refusal = rate;
            }
        }
        return new Admission(admitted, refusal);
    }

    @Override
    public void settled(String topic, int admitted) {
        Tenant tenant = directory.tenantOf(topic);
        Pending held = tenant == null ? null : pending.get(tenant.name());
        if (held != null) {
            synchronized (held) {
                held.inFlight = Math.max(0, held.inFlight - admitted);
                held.writtenSince += admitted;
            }
        }
    }

    /** Admitted jobs the enqueue rate then refused: never written. */
    private static void notWritten(Pending held, int jobs) {
        if (held != null) {
            synchronized (held) {
                held.inFlight = Math.max(0, held.inFlight - jobs);
            }
        }
    }

    private void checkTopics(Tenant tenant, String topic, int max) {
        Set<String> seen = topicsSeen.get(tenant.name());
        if (seen != null && seen.contains(topic)) {
            return;
        }
        Set<String> now = Set.copyOf(use.topicsOf(tenant));
        topicsSeen.put(tenant.name(), now);
        if (!now.contains(topic) && now.size() >= max) {
            throw new QuotaExceededException(tenant.name(), "maxTopics", max, now.size(), 429, TOPICS_RETRY_AFTER_S,
                    "tenant " + tenant.name() + " has " + now.size() + " topics; its quota maxTopics is " + max
                            + ", so a new topic cannot be started (use one of its topics, or ask an operator)");
        }
    }

    /**
     * Reads the tenant's pending count from the store again when the last read is {@value #PENDING_READ_MS} ms old or
     * when these {@code wanted} jobs would bring it past half the quota (what each instance may admit on its own count
     * alone: two instances each at half are the quota, not twice it): past half, every admission
     * is decided on the store's count plus this instance's writes in flight, so only admissions truly at the same
     * moment on other instances can overshoot. Called holding {@code held}.
     */
    private void refreshIfNeeded(Tenant tenant, String topic, Pending held, int wanted, long max) {
        long now = System.nanoTime();
        boolean nearLimit = held.count() + wanted > max / 2;
        if (nearLimit || held.readAtNanos == 0 || now - held.readAtNanos > PENDING_READ_MS * 1_000_000) {
            // The store's topic list may not show a topic its first jobs just started (a registry written off the
            // request path, issue 26 finding 21): the topic being admitted into is counted whether it shows or not.
            // Schedules count as pending jobs.
            held.stored = use.of(tenant, topic).pendingJobs();
            held.writtenSince = 0;
            held.readAtNanos = System.nanoTime();
        }
    }

    private static QuotaExceededException pendingFull(Tenant tenant, long max, long current) {
        return new QuotaExceededException(tenant.name(), "maxPendingJobs", max, current, 429, PENDING_RETRY_AFTER_S,
                "tenant " + tenant.name() + " holds " + current + " pending jobs (its schedules counted as jobs); its"
                        + " quota maxPendingJobs is " + max);
    }
}
