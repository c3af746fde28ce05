package io.delayq.service.tenants;

import io.delayq.core.JobStore;
import io.delayq.core.TopicStats;
import io.delayq.core.tenant.Tenant;

import java.util.List;
import java.util.Set;

/** What a tenant holds now, read from the store: its topics (those that hold or held jobs) and pending jobs. */
public final class TenantUse {
    private final JobStore store;

    public TenantUse(JobStore store) {
        this.store = store;
    }

    /**
     * @param topics      topics of the store matching the tenant's patterns
     * @param pendingJobs scheduled and leased jobs in them
     */
    public record Use(int topics, long pendingJobs) {
    }

    /** The store's topics that {@code tenant} owns. */
    public List<String> topicsOf(Tenant tenant) {
        Set<String> all = store.topics();
        return all.stream().filter(tenant::owns).sorted().toList();
    }

    public Use of(Tenant tenant) {
        List<String> topics = topicsOf(tenant);
        return new Use(topics.size(), pending(topics));
    }

    /** Scheduled and leased jobs of these topics together. */
    public long pending(List<String> topics) {
        if (topics.isEmpty()) {
            return 0;
        }
        long pending = 0;
        for (TopicStats stats : store.stats(topics).values()) {
            pending += stats.scheduled() + stats.leased();
        }
        return pending;
    }
}
