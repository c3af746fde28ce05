package io.delayq.service.delivery;

import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.Tenant;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which secrets sign a topic's callbacks and dead notices: those of the tenant owning it ({@link TenantLookup}), one
 * {@code v2} each, so that during a rotation (two secrets) both signatures travel in the one header and removing the
 * old secret stops its signature; a tenant without secrets and the operators' topics are signed with the service's
 * own {@code delivery.signingSecret}. Signers are kept by their list of secrets, so that a topic whose tenant did not
 * change reuses its signer (and its per-thread {@code Mac}s).
 */
public final class TopicSigners {
    /** Signer lists kept at most: far more than tenants × rotations; beyond it the cache starts again. */
    private static final int MAX_SIGNERS = 1_000;

    private final Signatures service;
    private final TenantLookup tenants;
    private final ConcurrentHashMap<List<String>, Signatures> bySecrets = new ConcurrentHashMap<>();

    /**
     * @param service the signer of {@code delivery.signingSecret}
     * @param tenants who owns a topic
     */
    public TopicSigners(Signatures service, TenantLookup tenants) {
        this.service = service;
        this.tenants = tenants;
    }

    /** Every topic signed with the service's secret alone. */
    public static TopicSigners serviceOnly(Signatures service) {
        return new TopicSigners(service, TenantLookup.NONE);
    }

    /** The signer of the topic's owner, looked up now. */
    public Signatures forTopic(String topic) {
        return forTenant(tenants.tenantOf(topic));
    }

    /** Who owns a topic; the engine caches the answer per topic. */
    TenantLookup tenants() {
        return tenants;
    }

    /** The signer of a tenant's secrets, in their order; the service's for {@code null} or a tenant without any. */
    Signatures forTenant(Tenant tenant) {
        if (tenant == null || tenant.signingSecrets().isEmpty()) {
            return service;
        }
        List<String> secrets = tenant.signingSecrets().stream().map(SigningSecret::secret).toList();
        Signatures known = bySecrets.get(secrets);
        if (known != null) {
            return known;
        }
        if (bySecrets.size() >= MAX_SIGNERS) {
            bySecrets.clear();
        }
        return bySecrets.computeIfAbsent(secrets, Signatures::new);
    }
}
