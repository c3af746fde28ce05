package io.delayq.core.testing;

import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TopicPattern;

import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * Tenants, tokens and compare-and-set writes for tests of a {@link TenantRegistry}, which is one per backend: other
 * tests may move its version at any time, so a write that must succeed is tried again on the version it finds.
 */
public final class TenancyFixtures {
    /** The signing secret of {@link #tenantWithSecret}: tests look for it where it must not be. */
    public static final String SECRET = "s3cret-s3cret-s3cret";

    private TenancyFixtures() {
    }

    /**
     * Tries {@code change} on the current version until it succeeds.
     *
     * @return the version it succeeded on
     */
    public static long write(TenantRegistry registry, LongPredicate change) {
        for (int i = 0; i < 100; i++) {
            long version = registry.version();
            if (change.test(version)) {
                return version;
            }
        }
        throw new AssertionError("a compare-and-set lost 100 times in a row");
    }

    /** A tenant owning {@code <name>.*}, with quotas, weight 2 and the signing secret {@link #SECRET}. */
    public static Tenant tenantWithSecret(String name) {
        return new Tenant(name, List.of(TopicPattern.of(name + ".*")), new TenantQuotas(5L, null, null, null, null), 2,
                List.of(new SigningSecret("2026-11", SECRET)), false);
    }

    /** A token of {@code tenant} ({@code null}: the operators') with one role. */
    public static ApiToken token(String tenant, String name, String role) {
        return new ApiToken(tenant, name, Set.of(role), "ab".repeat(32), 1_700_000_000_000L, null, null, false);
    }
}
