package io.delayq.service.delivery;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TopicPattern;

import java.util.List;

/**
 * A tenant of the configuration's {@code tenants:} list as delivery reads it: {@code {name, topics, weight,
 * signingSecrets: [{id, secret}]}} (weight 1 when left out).
 *
 * <p>A stand-in until the service's tenant configuration and directory (package {@code tenants}) are in: they read
 * the same block, with quotas, and the directory replaces {@link TenantLookup#over} over this list where the service
 * wires delivery.
 */
public record ConfiguredTenant(String name, List<TopicPattern> topics, int weight, List<SigningSecret> signingSecrets) {
    @JsonCreator
    public ConfiguredTenant(@JsonProperty("name") String name, @JsonProperty("topics") List<TopicPattern> topics,
                            @JsonProperty("weight") Integer weight,
                            @JsonProperty("signingSecrets") List<SigningSecret> signingSecrets) {
        this(name, topics, weight == null ? Tenant.DEFAULT_WEIGHT : weight,
                signingSecrets == null ? List.of() : signingSecrets);
    }

    /** The tenant, checked as every tenant is (its name, patterns, weight, secrets). */
    public Tenant tenant() {
        return new Tenant(name, topics, TenantQuotas.none(), weight, signingSecrets, true);
    }

    /** Never the secrets' values. */
    @Override
    public String toString() {
        return "ConfiguredTenant[" + name + " " + topics + " weight " + weight + "]";
    }
}
