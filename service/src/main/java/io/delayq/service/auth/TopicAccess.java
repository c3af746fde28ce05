package io.delayq.service.auth;

import io.delayq.core.tenant.Tenant;
import io.delayq.service.delivery.TenantLookup;

import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Makes the {@link Scope} of each token from the service's tenants: which tenant owns a topic ({@link TenantLookup},
 * the one delivery uses) and a tenant by its name (for the archive's {@link io.delayq.core.archive.TopicScope}).
 * The tenant directory answers both; both are asked at each call, so that a tenant changed at run time is applied to
 * the next request.
 */
public final class TopicAccess {
    /** No tenants at all: an operator's token sees every topic, a tenant's token none. */
    public static final TopicAccess NONE = new TopicAccess(TenantLookup.NONE, name -> null);

    private final TenantLookup owners;
    private final Function<String, Tenant> tenantNamed;

    public TopicAccess(TenantLookup owners, Function<String, Tenant> tenantNamed) {
        this.owners = Objects.requireNonNull(owners, "owners");
        this.tenantNamed = Objects.requireNonNull(tenantNamed, "tenantNamed");
    }

    /** Over a list of tenants read anew at every call (the configuration's, until the tenant directory is wired). */
    public static TopicAccess over(Supplier<? extends Collection<Tenant>> tenants) {
        return new TopicAccess(TenantLookup.over(tenants), name -> {
            for (Tenant t : tenants.get()) {
                if (t.name().equals(name)) {
                    return t;
                }
            }
            return null;
        });
    }

    public TenantLookup owners() {
        return owners;
    }

    /** The scope of the token's holder: every topic for an operator, the tenant's topics for a tenant's token. */
    public Scope scopeOf(DelayqPrincipal principal) {
        return new Scope(principal.tenant(), owners, tenantNamed);
    }
}
