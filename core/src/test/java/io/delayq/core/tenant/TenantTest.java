package io.delayq.core.tenant;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TenantTest {

    @Test
    void aTenantOwnsTheTopicsItsPatternsMatch() {
        Tenant billing = tenant("billing", "billing.*", "invoices");
        assertThat(billing.owns("billing.eu.x")).isTrue();
        assertThat(billing.owns("invoices")).isTrue();
        assertThat(billing.owns("billing")).isFalse();
        assertThat(billing.owns("orders")).isFalse();
    }

    @Test
    void theOverlapOfTwoTenantsIsNamed() {
        Tenant billing = tenant("billing", "billing.*");
        assertThat(billing.overlapWith(tenant("eu", "billing.eu.*"))).isEqualTo(TopicPattern.of("billing.*"));
        assertThat(billing.overlapWith(tenant("shipping", "shipping.*", "billing"))).isNull();
    }

    @Test
    void namesWeightsAndSecretsAreChecked() {
        assertThatThrownBy(() -> tenant("..", "a.*")).hasMessageContaining("dots");
        assertThatThrownBy(() -> new Tenant("t", List.of(), TenantQuotas.none(), 1, List.of(), false))
                .hasMessageContaining("topic patterns");
        assertThatThrownBy(() -> new Tenant("t", List.of(TopicPattern.of("a.*")), null, 0, List.of(), false))
                .hasMessageContaining("weight");
        assertThatThrownBy(() -> new SigningSecret("k", "short")).hasMessageContaining("16 to 256 bytes");
        SigningSecret one = new SigningSecret("k1", "0123456789abcdef");
        assertThatThrownBy(() -> new Tenant("t", List.of(TopicPattern.of("a.*")), null, 1,
                List.of(one, new SigningSecret("k2", "0123456789abcdef"), new SigningSecret("k3", "0123456789abcdef")),
                false)).hasMessageContaining("at most 2");
        assertThatThrownBy(() -> new Tenant("t", List.of(TopicPattern.of("a.*")), null, 1, List.of(one, one), false))
                .hasMessageContaining("appears twice");
    }

    @Test
    void secretsNeverShowInText() {
        Tenant t = new Tenant("t", List.of(TopicPattern.of("a.*")), null, 1,
                List.of(new SigningSecret("k1", "very-secret-value-1")), false);
        assertThat(t.toString()).contains("k1").doesNotContain("very-secret-value-1");
        assertThat(t.signingSecrets().get(0).toString()).doesNotContain("very-secret-value-1");
    }

    @Test
    void quotasRefuseWhatMakesNoSense() {
        assertThatThrownBy(() -> new TenantQuotas(0L, null, null, null, null)).hasMessageContaining("maxPendingJobs");
        assertThatThrownBy(() -> new TenantQuotas(null, null, 10, null, null)).hasMessageContaining("enqueueBurst");
        assertThatThrownBy(() -> new TenantQuotas(null, Double.NaN, null, null, null))
                .hasMessageContaining("enqueuePerSecond");
        assertThat(new TenantQuotas(null, 2.5, null, null, null).effectiveBurst()).isEqualTo(3);
        assertThat(new TenantQuotas(null, 0.1, null, null, null).effectiveBurst()).isEqualTo(1);
    }

    private static Tenant tenant(String name, String... patterns) {
        return new Tenant(name, java.util.Arrays.stream(patterns).map(TopicPattern::of).toList(), TenantQuotas.none(),
                1, List.of(), false);
    }
}
