package io.delayq.service.tenants;

import io.delayq.core.JobStore;
import io.delayq.core.TopicStats;
import io.delayq.core.tenant.Tenant;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a tenant holds now, read from the store: its topics (those that hold or held jobs, or hold schedules), its
 * pending jobs and its schedules. A schedule counts as a pending job (issue "many teams": schedules count as jobs), so
 * {@code pendingJobs} is what {@code maxPendingJobs} is checked against.
 */
public final class TenantUse {
    private final JobStore store;

    public TenantUse(JobStore store) {
        this.store = store;
    }

    /**
     * @param topics      topics of the store matching the tenant's patterns (holding or having held jobs, or holding
     *                    schedules)
     * @param pendingJobs what counts against {@code maxPendingJobs}: scheduled and leased jobs in them, and their
     *                    schedules
     * @param schedules   how many of {@code pendingJobs} are schedules
     */
    public record Use(int topics, long pendingJobs, long schedules) {
    }

    /** The store's topics that {@code tenant} owns, including those that hold schedules and never held a job yet. */
    public List<String> topicsOf(Tenant tenant) {
        Set<String> owned = new TreeSet<>();
        for (String topic : store.topics()) {
            if (tenant.owns(topic)) {
                owned.add(topic);
            }
        }
        owned.addAll(scheduleCounts(tenant).keySet());
        return List.copyOf(owned);
    }

    public Use of(Tenant tenant) {
        return of(tenant, null);
    }

    /**
     * As {@link #of(Tenant)}, counting {@code alsoTopic}'s jobs too when given: the store's topic list may not show a
     * topic its first jobs just started (Redis registers topics off the request path), and the topic being admitted
     * into must always count.
     */
    public Use of(Tenant tenant, String alsoTopic) {
        Set<String> owned = new TreeSet<>();
        for (String topic : store.topics()) {
            if (tenant.owns(topic)) {
                owned.add(topic);
            }
        }
        Map<String, Long> schedules = scheduleCounts(tenant);
        owned.addAll(schedules.keySet());
        if (alsoTopic != null) {
            owned.add(alsoTopic);
        }
        long scheduleCount = schedules.values().stream().mapToLong(Long::longValue).sum();
        return new Use(owned.size(), jobs(owned) + scheduleCount, scheduleCount);
    }

    /**
     * The use of each of {@code tenants}, by name, from one read of the store's topics, one of the schedules and one of
     * the counters of all their topics (for the metrics' timer: the cost does not multiply by the tenants).
     */
    public Map<String, Use> ofEach(Collection<Tenant> tenants) {
        Map<String, Set<String>> owned = new LinkedHashMap<>();
        tenants.forEach(t -> owned.put(t.name(), new TreeSet<>()));
        for (String topic : store.topics()) {
            Tenant owner = ownerAmong(tenants, topic);
            if (owner != null) {
                owned.get(owner.name()).add(topic);
            }
        }
        Map<String, Long> schedules;
        try {
            schedules = store.schedules().counts(topic -> ownerAmong(tenants, topic) != null);
        } catch (UnsupportedOperationException noSchedules) {
            schedules = Map.of();
        }
        Map<String, Long> scheduleSums = new HashMap<>();
        schedules.forEach((topic, n) -> {
            String owner = ownerAmong(tenants, topic).name();
            owned.get(owner).add(topic);
            scheduleSums.merge(owner, n, Long::sum);
        });
        List<String> every = owned.values().stream().flatMap(Set::stream).toList();
        Map<String, TopicStats> stats = every.isEmpty() ? Map.of() : store.stats(every);
        Map<String, Use> out = new LinkedHashMap<>();
        owned.forEach((tenant, topics) -> {
            long jobs = 0;
            for (String topic : topics) {
                TopicStats st = stats.get(topic);
                jobs += st == null ? 0 : st.scheduled() + st.leased();
            }
            long sched = scheduleSums.getOrDefault(tenant, 0L);
            out.put(tenant, new Use(topics.size(), jobs + sched, sched));
        });
        return out;
    }

    private static Tenant ownerAmong(Collection<Tenant> tenants, String topic) {
        for (Tenant t : tenants) {
            if (t.owns(topic)) {
                return t;
            }
        }
        return null;
    }

    /** Scheduled and leased jobs of these topics together. */
    public long jobs(Collection<String> topics) {
        if (topics.isEmpty()) {
            return 0;
        }
        long pending = 0;
        for (TopicStats stats : store.stats(List.copyOf(topics)).values()) {
            pending += stats.scheduled() + stats.leased();
        }
        return pending;
    }

    /** The tenant's schedules by topic; none when the store keeps no schedules. */
    private Map<String, Long> scheduleCounts(Tenant tenant) {
        try {
            return store.schedules().counts(tenant::owns);
        } catch (UnsupportedOperationException noSchedules) {
            return Map.of();
        }
    }
}
