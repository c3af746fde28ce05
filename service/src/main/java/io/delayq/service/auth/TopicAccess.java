package io.delayq.service.auth;

import io.delayq.core.JobRules;
import io.delayq.core.tenant.Tenant;
import io.delayq.service.delivery.TenantLookup;
import jakarta.ws.rs.BadRequestException;

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

    /**
     * The scope of a request of {@code principal} carrying {@value Scope#VIEW_HEADER} {@code view} ({@code null} or
     * blank: no header). It only ever narrows: an operator's request sees the named tenant's topics only; a tenant's
     * token may name its own tenant (nothing changes) and no other.
     *
     * @throws BadRequestException (400) naming the tenant when it is unknown, or when a tenant's token names another
     *                             (the same answer whether that other tenant exists or not)
     */
    public Scope scopeOf(DelayqPrincipal principal, String view) {
        if (view == null || view.isBlank()) {
            return scopeOf(principal);
        }
        String named = view.strip();
        if (!principal.isOperator()) {
            if (named.equals(principal.tenant())) {
                return scopeOf(principal);
            }
            throw new BadRequestException(Scope.VIEW_HEADER + " names tenant " + JobRules.quote(named) + ", but the"
                    + " token of " + JobRules.quote(principal.name()) + " belongs to tenant "
                    + JobRules.quote(principal.tenant()) + " and sees its topics only: leave the header out (or name"
                    + " " + JobRules.quote(principal.tenant()) + ")");
        }
        if (tenantNamed.apply(named) == null) {
            throw new BadRequestException(Scope.VIEW_HEADER + " names tenant " + JobRules.quote(named) + ", and there"
                    + " is no tenant of that name (GET /v1/admin/tenants lists them); leave the header out to see every"
                    + " topic");
        }
        return new Scope(named, owners, tenantNamed, true);
    }
}
