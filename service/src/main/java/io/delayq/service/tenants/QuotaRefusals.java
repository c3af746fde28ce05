package io.delayq.service.tenants;

import io.delayq.service.errors.QuotaExceededException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The quota refusals this instance answered, by tenant and quota (what {@code delayq_tenant_quota_exceeded_total}
 * exposes). Bounded by the tenants times the five quotas; a deleted tenant's counts stay until the restart, as a
 * counter's must.
 */
public final class QuotaRefusals {
    /** One tenant's refusals of one quota. */
    public record Count(String tenant, String quota, long refusals) {
    }

    private record Key(String tenant, String quota) {
    }

    private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();

    /** A refusal answered (a whole request, or the items of a batch the quota did not admit: one each time). */
    public void count(QuotaExceededException refusal) {
        counts.computeIfAbsent(new Key(refusal.tenant(), refusal.quota()), k -> new LongAdder()).increment();
    }

    public List<Count> counts() {
        List<Count> out = new ArrayList<>();
        counts.forEach((k, n) -> out.add(new Count(k.tenant(), k.quota(), n.sum())));
        return out;
    }
}
