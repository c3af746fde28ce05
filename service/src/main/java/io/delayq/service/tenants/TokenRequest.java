package io.delayq.service.tenants;

import java.util.Set;

/**
 * The body of {@code POST /v1/admin/tokens}.
 *
 * @param name      unique within the tenant
 * @param tenant    the tenant it acts for; left out: the caller's tenant (for an operator: an operators' token)
 * @param roles     any of producer, consumer, viewer, admin; a tenant's admin grants no role it does not hold
 * @param expiresAt RFC 3339; left out: never
 */
public record TokenRequest(String name, String tenant, Set<String> roles, String expiresAt) {
}
