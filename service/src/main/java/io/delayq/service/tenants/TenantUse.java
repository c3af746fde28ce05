package io.delayq.service.tenants;

import io.delayq.core.JobStore;
import io.delayq.core.TopicStats;
import io.delayq.core.archive.TopicScope;
import io.delayq.core.tenant.Tenant;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a tenant holds now, read from the store: its topics (those that hold or held jobs, or hold schedules), its
 * pending jobs and its schedules. A schedule counts as a pending job (issue "many teams": schedules count as jobs), so
 * {@code pendingJobs} is what {@code maxPendingJobs} is checked against.
 *
 * <p>Read by the tenant's patterns, never from the store's whole topic list ({@link TenantTopics}): a wildcard
 * ({@code billing.*}) pages through the topics and the schedule counts starting with its prefix (ranges of the store's
 * indexes by name); the exact topic names are looked up together ({@code JobStore.topicsAmong}), and their schedule
 * counts one name at a time. So a read costs the tenant's own topics, two reads per wildcard (one more per
 * {@value TenantTopics#PAGE} topics), one for the exact names and one per exact name's schedules, and one read of
 * their counters, however many topics other teams hold: the quota gate makes one on the enqueue path of a tenant past
 * half its {@code maxPendingJobs}.
 */
public final class TenantUse {
    private final JobStore store;
    private final TenantTopics byPattern;

    public TenantUse(JobStore store) {
        this.store = store;
        this.byPattern = new TenantTopics(store);
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
        Set<String> owned = storedTopics(tenant);
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
        Set<String> owned = storedTopics(tenant);
        Map<String, Long> schedules = scheduleCounts(tenant);
        owned.addAll(schedules.keySet());
        if (alsoTopic != null) {
            owned.add(alsoTopic);
        }
        long scheduleCount = schedules.values().stream().mapToLong(Long::longValue).sum();
        return new Use(owned.size(), jobs(owned) + scheduleCount, scheduleCount);
    }

    /**
     * The use of each of {@code tenants}, by name (for the metrics' timer): each tenant's topics and schedules read by
     * its patterns, then one read of the counters of all their topics together.
     */
    public Map<String, Use> ofEach(Collection<Tenant> tenants) {
        Map<String, Set<String>> owned = new LinkedHashMap<>();
        Map<String, Long> scheduleSums = new LinkedHashMap<>();
        for (Tenant tenant : tenants) {
            Set<String> topics = storedTopics(tenant);
            Map<String, Long> schedules = scheduleCounts(tenant);
            topics.addAll(schedules.keySet());
            owned.put(tenant.name(), topics);
            scheduleSums.put(tenant.name(), schedules.values().stream().mapToLong(Long::longValue).sum());
        }
        List<String> every = owned.values().stream().flatMap(Set::stream).distinct().toList();
        Map<String, TopicStats> stats = every.isEmpty() ? Map.of() : store.stats(every);
        Map<String, Use> out = new LinkedHashMap<>();
        owned.forEach((tenant, topics) -> {
            long jobs = 0;
            for (String topic : topics) {
                TopicStats st = stats.get(topic);
                jobs += st == null ? 0 : st.scheduled() + st.leased();
            }
            long sched = scheduleSums.get(tenant);
            out.put(tenant, new Use(topics.size(), jobs + sched, sched));
        });
        return out;
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

    /** The store's topics (with jobs or settings) matching the tenant's patterns, by name. */
    private Set<String> storedTopics(Tenant tenant) {
        return byPattern.all(TopicScope.of(tenant));
    }

    /** The tenant's schedules by topic, read by its patterns; none when the store keeps no schedules. */
    private Map<String, Long> scheduleCounts(Tenant tenant) {
        return byPattern.scheduleCounts(TopicScope.of(tenant));
    }
}
