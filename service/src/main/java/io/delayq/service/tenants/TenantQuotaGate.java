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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Enforces the quotas of the tenant owning a topic on every enqueue, across instances, with state in the store:
 *
 * <ul>
 *   <li>{@code maxPayloadBytes}: each job alone (413);</li>
 *   <li>{@code maxTopics}: a topic the tenant has not used yet is refused while the store holds that many of its
 *       topics (read from the store whenever a topic new to this instance's view comes);</li>
 *   <li>{@code maxPendingJobs}: the tenant's topics' scheduled and leased counters added up, read from the store at
 *       most {@value #PENDING_READ_MS} ms ago, plus what this instance admitted since;</li>
 *   <li>{@code enqueuePerSecond}/{@code enqueueBurst}: a token bucket in the store
 *       ({@link RateLimiters}, key {@code tenant:<name>:enqueue}), one atomic take per request.</li>
 * </ul>
 *
 * Consistency (docs/tenants.md): the bucket is exact across instances. Near its limit (the last tenth) the pending
 * count is read from the store at every admission, so it can be overshot only by admissions in flight at the same
 * moment on other instances (at most a batch each; with an enqueue rate, never more than the bucket grants); the
 * topic count by the topics started at the same moment on other instances.
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

    /** One tenant's pending jobs as read from the store, plus this instance's admissions since. */
    private static final class Pending {
        final AtomicLong count = new AtomicLong();
        volatile long readAtNanos;
    }

    public TenantQuotaGate(TenantDirectory directory, TenantUse use, RateLimiters buckets) {
        this.directory = directory;
        this.use = use;
        this.buckets = buckets;
    }

    @Override
    public void check(String topic, NewJob job) {
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

    @Override
    public Admission admit(String topic, List<NewJob> jobs) {
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
            held = pendingOf(tenant, admitted, q.maxPendingJobs());
            long before = held.count.getAndAdd(admitted);
            long room = q.maxPendingJobs() - before;
            if (room <= 0) {
                held.count.addAndGet(-admitted);
                throw pendingFull(tenant, q.maxPendingJobs(), before);
            }
            if (room < admitted) {
                held.count.addAndGet(-(admitted - room));
                admitted = (int) room;
                refusal = pendingFull(tenant, q.maxPendingJobs(), q.maxPendingJobs());
            }
        }
        if (q.enqueuePerSecond() != null) {
            int burst = q.effectiveBurst();
            Grant grant;
            try {
                grant = buckets.take("tenant:" + tenant.name() + ":enqueue", new Rate(q.enqueuePerSecond(), burst),
                        admitted);
            } catch (RuntimeException e) {
                if (held != null) {
                    held.count.addAndGet(-admitted);
                }
                throw e;
            }
            if (grant.granted() < admitted) {
                if (held != null) {
                    held.count.addAndGet(-(admitted - grant.granted()));
                }
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
     * The tenant's pending count, read again from the store when the last read is {@value #PENDING_READ_MS} ms old or
     * when these {@code wanted} jobs would bring it into the last tenth of the quota: near the limit, every admission
     * is decided on the store's count, so only admissions truly at the same moment on other instances can overshoot.
     */
    private Pending pendingOf(Tenant tenant, int wanted, long max) {
        Pending held = pending.computeIfAbsent(tenant.name(), n -> new Pending());
        long now = System.nanoTime();
        boolean nearLimit = held.count.get() + wanted > max - max / 10;
        if (nearLimit || held.readAtNanos == 0 || now - held.readAtNanos > PENDING_READ_MS * 1_000_000) {
            synchronized (held) {
                if (nearLimit || held.readAtNanos == 0 || now - held.readAtNanos > PENDING_READ_MS * 1_000_000) {
                    held.count.set(use.pending(use.topicsOf(tenant)));
                    held.readAtNanos = System.nanoTime();
                }
            }
        }
        return held;
    }

    private static QuotaExceededException pendingFull(Tenant tenant, long max, long current) {
        return new QuotaExceededException(tenant.name(), "maxPendingJobs", max, current, 429, PENDING_RETRY_AFTER_S,
                "tenant " + tenant.name() + " holds " + current + " pending jobs; its quota maxPendingJobs is " + max);
    }
}
