package io.delayq.core.tenant;

import java.util.List;
import java.util.Map;

/**
 * Every tenant and API token the store keeps, read at one {@code version}. Small (tenants and tokens are made by
 * people, not by traffic), so instances read it whole when the version moves.
 *
 * @param version      {@link TenantRegistry#version()} at the time of reading
 * @param tenants      by name
 * @param tokens       revoked ones included (so that lists can show them)
 * @param lastUsedAtMs when each token was last used, as far as instances have reported it
 */
public record TenancySnapshot(long version, List<Tenant> tenants, List<ApiToken> tokens,
                              Map<TokenKey, Long> lastUsedAtMs) {
    public TenancySnapshot {
        tenants = List.copyOf(tenants);
        tokens = List.copyOf(tokens);
        lastUsedAtMs = Map.copyOf(lastUsedAtMs);
    }

    public static TenancySnapshot empty() {
        return new TenancySnapshot(0, List.of(), List.of(), Map.of());
    }
}
