package io.delayq.service.tenants;

import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TopicPattern;

import java.util.List;

/**
 * A tenant as the API shows it: never a secret's value, only its id; with what it holds now.
 *
 * @param fromConfig declared in {@code config.yml}: read-only through the API
 * @param use        its topics and pending jobs now ({@code null} when the store could not be read)
 */
public record TenantView(String name, List<String> topics, TenantQuotas quotas, int weight,
                         List<SecretId> signingSecrets, boolean fromConfig, TenantUse.Use use) {

    public record SecretId(String id) {
    }

    public static TenantView of(Tenant tenant, TenantUse.Use use) {
        return new TenantView(tenant.name(), tenant.topics().stream().map(TopicPattern::text).toList(),
                tenant.quotas(), tenant.weight(),
                tenant.signingSecrets().stream().map(SigningSecret::id).map(SecretId::new).toList(),
                tenant.fromConfig(), use);
    }
}
