package io.delayq.service.tenants;

import io.delayq.core.tenant.TokenKey;
import io.delayq.service.auth.TokenFactory;

import java.util.Set;

/** A token of {@code auth.tokens} as the token API lists it (read-only): never its value nor its hash. */
public record ConfigToken(String tenant, String name, Set<String> roles) {
    public ConfigToken {
        roles = Set.copyOf(roles);
    }

    public static ConfigToken of(TokenFactory token) {
        return new ConfigToken(token.getTenant(), token.getName(), token.getRoles());
    }

    public TokenKey key() {
        return new TokenKey(tenant, name);
    }
}
