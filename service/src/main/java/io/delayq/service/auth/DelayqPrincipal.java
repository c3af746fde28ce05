package io.delayq.service.auth;

import java.security.Principal;
import java.util.Set;

/**
 * The holder of an accepted token: its name, its roles and the tenant it belongs to.
 *
 * @param tenant the tenant whose topics the token sees and acts on, or {@code null} for an operator token, which sees
 *               every topic (every token of the configuration without a {@code tenant}, as before tenants existed)
 * @param scope  what the request may see, set by {@link BearerAuthFeature} on the principal of each request (the
 *               principal is what reaches a resource through JAX-RS's {@code SecurityContext} proxy); {@code null}
 *               before that, and then {@link Scope#of} sees nothing
 */
public record DelayqPrincipal(String name, Set<String> roles, String tenant, Scope scope) implements Principal {
    public DelayqPrincipal {
        roles = Set.copyOf(roles);
    }

    /** A token's holder, before a request gives it a scope. */
    public DelayqPrincipal(String name, Set<String> roles, String tenant) {
        this(name, roles, tenant, null);
    }

    /** An operator's token: no tenant. */
    public DelayqPrincipal(String name, Set<String> roles) {
        this(name, roles, null, null);
    }

    /** The same holder, with the scope of a request. */
    DelayqPrincipal withScope(Scope requestScope) {
        return new DelayqPrincipal(name, roles, tenant, requestScope);
    }

    /** Whether the token is an operator's, seeing every tenant's topics. */
    public boolean isOperator() {
        return tenant == null;
    }

    @Override
    public String getName() {
        return name;
    }
}
