package io.delayq.service.tenants;

import io.delayq.core.tenant.ApiToken;
import io.delayq.service.api.JobView;

import java.util.List;

/**
 * A token as {@code GET /v1/admin/tokens} lists it: never its value nor its hash. Times are RFC 3339 or {@code null}.
 *
 * @param lastUsedAt when it was last used, written at most once a minute ({@code null}: never, or not known for a
 *                   token of the configuration)
 * @param active     neither expired nor revoked
 * @param fromConfig declared in {@code config.yml}: read-only
 */
public record TokenView(String name, String tenant, List<String> roles, String createdAt, String expiresAt,
                        String revokedAt, String lastUsedAt, boolean active, boolean fromConfig) {

    public static TokenView of(ApiToken token, Long lastUsedAtMs, long nowMs) {
        return new TokenView(token.name(), token.tenant(), token.roles().stream().sorted().toList(),
                time(token.createdAtMs()), time(token.expiresAtMs()), time(token.revokedAtMs()), time(lastUsedAtMs),
                token.isActive(nowMs), false);
    }

    public static TokenView of(ConfigToken token) {
        return new TokenView(token.name(), token.tenant(), token.roles().stream().sorted().toList(), null, null, null,
                null, true, true);
    }

    static String time(Long ms) {
        return ms == null ? null : JobView.time(ms);
    }
}
