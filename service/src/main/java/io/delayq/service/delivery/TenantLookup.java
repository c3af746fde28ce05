package io.delayq.service.delivery;

import io.delayq.core.tenant.Tenant;

import java.util.Collection;
import java.util.function.Supplier;

/**
 * Which tenant owns a topic, as delivery needs to know it: for the tenant's share of delivery capacity
 * ({@link Tenant#weight()}) and the secrets its callbacks and dead notices are signed with
 * ({@link Tenant#signingSecrets()}). {@code null} means the operators: a topic outside every tenant, weighing
 * {@value Tenant#DEFAULT_WEIGHT} among the tenants and signed with {@code delivery.signingSecret}.
 *
 * <p>The service's tenant directory answers it; the engine asks about a topic at most once a second and keeps the
 * answer meanwhile, so a changed weight or secret takes effect within a second of the directory seeing it. It must
 * not block for long: it is asked on the engine's timer threads.
 */
@FunctionalInterface
public interface TenantLookup {
    /** Every topic is the operators'. */
    TenantLookup NONE = topic -> null;

    /** The tenant owning {@code topic}, or {@code null} for the operators. */
    Tenant tenantOf(String topic);

    /**
     * A lookup over a list of tenants, read anew at every call: the first tenant that {@linkplain Tenant#owns owns}
     * the topic (the patterns of two tenants never overlap, so there is at most one).
     */
    static TenantLookup over(Supplier<? extends Collection<Tenant>> tenants) {
        return topic -> {
            for (Tenant tenant : tenants.get()) {
                if (tenant.owns(topic)) {
                    return tenant;
                }
            }
            return null;
        };
    }
}
