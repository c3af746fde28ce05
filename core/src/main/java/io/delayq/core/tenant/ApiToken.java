package io.delayq.core.tenant;

import io.delayq.core.JobRules;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * A bearer token of the API, as the store keeps it: never the token itself, only its SHA-256. The token is shown once,
 * when it is created.
 *
 * @param tenant      the tenant it acts for, or {@code null} for an operators' token (sees every topic)
 * @param name        unique within the tenant
 * @param roles       what it may do within its tenant ({@code producer}, {@code consumer}, {@code viewer},
 *                    {@code admin}; the service checks the names)
 * @param sha256      the token's SHA-256, 64 lowercase hex digits
 * @param createdAtMs when it was made (epoch ms)
 * @param expiresAtMs when it stops working, or {@code null}
 * @param revokedAtMs when it was revoked, or {@code null}
 * @param fromConfig  declared in {@code config.yml}: read-only through the API
 */
public record ApiToken(String tenant, String name, Set<String> roles, String sha256, long createdAtMs,
                       Long expiresAtMs, Long revokedAtMs, boolean fromConfig) {
    private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

    public ApiToken {
        if (tenant != null) {
            JobRules.checkClientName("tenant", tenant);
        }
        JobRules.checkClientName("token name", name);
        if (roles == null || roles.isEmpty()) {
            throw new IllegalArgumentException("token " + JobRules.quote(name) + " needs at least one role");
        }
        roles = Set.copyOf(roles);
        if (sha256 == null || !HEX64.matcher(sha256).matches()) {
            throw new IllegalArgumentException("a token's sha256 is 64 lowercase hex digits");
        }
    }

    public TokenKey key() {
        return new TokenKey(tenant, name);
    }

    /** Not revoked, and not expired at {@code nowMs}. */
    public boolean isActive(long nowMs) {
        return revokedAtMs == null && (expiresAtMs == null || nowMs < expiresAtMs);
    }

    public ApiToken revoked(long atMs) {
        return new ApiToken(tenant, name, roles, sha256, createdAtMs, expiresAtMs, atMs, fromConfig);
    }

    /** Never the hash. */
    @Override
    public String toString() {
        return "ApiToken[" + key() + " " + roles + "]";
    }
}
