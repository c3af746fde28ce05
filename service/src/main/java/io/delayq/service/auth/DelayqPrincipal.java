package io.delayq.service.auth;

import java.security.Principal;
import java.util.Set;

/**
 * The holder of an accepted token: its name, its roles and the tenant it belongs to.
 *
 * @param tenant the tenant whose topics the token sees and acts on, or {@code null} for an operator token, which sees
 *               every topic (every token of the configuration without a {@code tenant}, as before tenants existed)
 */
public record DelayqPrincipal(String name, Set<String> roles, String tenant) implements Principal {
    public DelayqPrincipal {
        roles = Set.copyOf(roles);
    }

    /** An operator's token: no tenant. */
    public DelayqPrincipal(String name, Set<String> roles) {
        this(name, roles, null);
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
