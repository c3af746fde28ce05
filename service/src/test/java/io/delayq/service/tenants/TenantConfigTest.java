package io.delayq.service.tenants;

import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TopicPattern;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The configuration's tenants: checked alone and against each other, marked as configured, never quoting a secret. */
class TenantConfigTest {
    private static TenantConfig config(String name, String pattern) {
        return new TenantConfig(name, List.of(TopicPattern.of(pattern)), null, null, null);
    }

    @Test
    void validTenantsAreMarkedConfiguredWithDefaults() {
        TenantConfig billing = new TenantConfig("billing", List.of(TopicPattern.of("billing.*")),
                new TenantQuotas(10L, 5.0, null, null, null), 3,
                List.of(new SigningSecret("s1", "a-secret-of-enough-bytes")));

        List<Tenant> tenants = TenantConfig.tenants(List.of(billing, config("data", "data.*")));

        assertThat(tenants).extracting(Tenant::name).containsExactly("billing", "data");
        assertThat(tenants).allMatch(Tenant::fromConfig);
        assertThat(tenants.get(0).weight()).isEqualTo(3);
        assertThat(tenants.get(1).weight()).isEqualTo(Tenant.DEFAULT_WEIGHT);
        assertThat(tenants.get(0).quotas().effectiveBurst()).isEqualTo(5);
        assertThat(billing.toString()).doesNotContain("a-secret-of-enough-bytes");
    }

    @Test
    void overlappingPatternsAndRepeatedNamesAreRefusedNamingBoth() {
        assertThatThrownBy(() -> TenantConfig.tenants(List.of(config("billing", "billing.*"),
                config("eu", "billing.eu.*"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tenants[1]")
                .hasMessageContaining("billing").hasMessageContaining("eu");
        assertThatThrownBy(() -> TenantConfig.tenants(List.of(config("a", "a.*"), config("a", "b.*"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThat(TenantConfig.tenants(List.of(config("a", "billing"), config("b", "billing.*")))).hasSize(2);
    }

    @Test
    void aBadTenantIsRefusedByItsIndex() {
        TenantConfig noTopics = new TenantConfig("x", List.of(), null, null, null);
        TenantConfig weight = new TenantConfig("y", List.of(TopicPattern.of("y.*")), null, 0, null);

        assertThatThrownBy(() -> TenantConfig.tenants(List.of(config("a", "a.*"), noTopics)))
                .hasMessageContaining("tenants[1]").hasMessageContaining("topic patterns");
        assertThatThrownBy(() -> TenantConfig.tenants(List.of(weight))).hasMessageContaining("weight");
    }
}
