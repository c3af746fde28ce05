package io.delayq.service.delivery;

import io.delayq.core.tenant.Tenant;

import java.util.concurrent.TimeUnit;

/**
 * Keeps each topic's owner up to date for delivery, looked up at most once a second per topic: the
 * {@link FairScheduler} share its turns and slots count against (the tenant's, weighted, or the operators' of weight
 * {@value Tenant#DEFAULT_WEIGHT}) and the signer of its callbacks ({@link TopicSigners}). A lookup that fails keeps
 * what the topic had.
 */
final class TopicOwners {
    /** The operators' share: no tenant is named so (a tenant's name is never empty). */
    static final String OPERATORS = "";
    private static final long TTL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TopicSigners signers;
    private final FairScheduler scheduler;
    private final StoreErrorLog errors;

    TopicOwners(TopicSigners signers, FairScheduler scheduler, StoreErrorLog errors) {
        this.signers = signers;
        this.scheduler = scheduler;
        this.errors = errors;
    }

    /** Looks the topic's owner up again when its last lookup is a second old (or there was none). */
    void refresh(TopicState ts) {
        long now = System.nanoTime();
        long checked = ts.ownerCheckedNanos;
        if (checked != 0 && now - checked < TTL_NANOS) {
            return;
        }
        ts.ownerCheckedNanos = now == 0 ? 1 : now;
        Tenant tenant;
        try {
            tenant = signers.tenants().tenantOf(ts.topic);
        } catch (RuntimeException e) {
            errors.log("find the tenant of topic " + ts.topic, e);
            if (ts.signer != null) {
                return;
            }
            tenant = null;
        }
        ts.signer = signers.forTenant(tenant);
        scheduler.assign(ts, tenant == null ? OPERATORS : tenant.name(),
                tenant == null ? Tenant.DEFAULT_WEIGHT : tenant.weight());
    }
}
