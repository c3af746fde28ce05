package io.delayq.service.auth;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * A configured token's {@code tenant} must name a tenant of the configuration: a misspelt tenant would otherwise make
 * a token that sees nothing (or, had the tenant been meant as a new one, a token whose scope appears silently once
 * someone declares that tenant). Checked when the configuration is read ({@code check} and {@code server} alike).
 */
public final class TokenTenants {
    private TokenTenants() {
    }

    /** What is wrong, naming each token whose tenant is unknown, or {@code null} when every tenant is known. */
    public static String unknown(Collection<TokenFactory> tokens, Set<String> tenants) {
        List<String> wrong = tokens.stream()
                .filter(t -> t.getTenant() != null && !tenants.contains(t.getTenant()))
                .map(t -> "token '" + t.getName() + "' names tenant '" + t.getTenant() + "'")
                .toList();
        return wrong.isEmpty() ? null : String.join("; ", wrong) + ", which tenants: does not declare (declared: "
                + tenants.stream().sorted().toList() + ")";
    }
}
