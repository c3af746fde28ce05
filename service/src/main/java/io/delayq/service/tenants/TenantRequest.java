package io.delayq.service.tenants;

import io.delayq.core.tenant.TenantQuotas;

import java.util.List;

/**
 * The body of {@code PUT /v1/admin/tenants/{name}}.
 *
 * @param topics         topic patterns (required, 1 to 100)
 * @param quotas         left out: no limits
 * @param weight         1 to 1000; left out: 1
 * @param signingSecrets left out: the stored tenant's secrets are kept (none for a new one); each {@code {id, secret}},
 *                       or {@code {id}} alone to keep the stored secret of that id (secrets are never shown, so a
 *                       rotation sends the old one by id and the new one with its value)
 */
public record TenantRequest(List<String> topics, TenantQuotas quotas, Integer weight,
                            List<SecretSpec> signingSecrets) {

    /** One signing secret: {@code secret} left out keeps the stored value of {@code id}. */
    public record SecretSpec(String id, String secret) {
        /** Never the value. */
        @Override
        public String toString() {
            return "SecretSpec[" + id + "]";
        }
    }
}
