package io.delayq.service.tenants;

import java.util.List;

/**
 * The answer of {@code POST /v1/admin/tokens}: the only time the token's value is shown (the store keeps its SHA-256).
 *
 * @param token send it as {@code Authorization: Bearer <token>}
 */
public record CreatedToken(String name, String tenant, List<String> roles, String createdAt, String expiresAt,
                           String token) {
    /** Never the value. */
    @Override
    public String toString() {
        return "CreatedToken[" + tenant + "/" + name + "]";
    }
}
