package io.delayq.client;

import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The tenant and token API through the client, against the real service. */
@ExtendWith(DropwizardExtensionsSupport.class)
class TenantClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    @Test
    void tenantsAndTokensRoundTrip() {
        DelayqClient operator = TestService.client(APP);
        String name = "c" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

        TenantInfo made = operator.putTenant(name, TenantSpec.of(name + ".*").withWeight(3)
                .withQuotas(new TenantQuotas(100L, 10.0, 20, null, null))
                .withSigningSecrets(new TenantSpec.Secret("s1", "client-secret-0123456789")));
        assertThat(made.weight()).isEqualTo(3);
        assertThat(made.signingSecrets()).extracting(TenantInfo.SecretId::id).containsExactly("s1");
        assertThat(operator.tenant(name).quotas().enqueueBurst()).isEqualTo(20);
        assertThat(operator.tenants()).extracting(TenantInfo::name).contains(name);
        TenantInfo rotated = operator.putTenant(name, TenantSpec.of(name + ".*").withSigningSecrets(
                TenantSpec.Secret.keep("s1"), new TenantSpec.Secret("s2", "client-secret-abcdefghij")));
        assertThat(rotated.signingSecrets()).extracting(TenantInfo.SecretId::id).containsExactly("s1", "s2");
        assertThatThrownBy(() -> operator.putTenant(name + "x", TenantSpec.of(name + ".a")))
                .isInstanceOf(ConflictException.class).hasMessageContaining(name);

        CreatedToken token = operator.createToken("app", name, Set.of("producer"),
                Instant.now().plus(1, ChronoUnit.DAYS));
        assertThat(token.token()).startsWith("dq_");
        assertThat(token.tenant()).isEqualTo(name);
        DelayqClient producer = TestService.client(APP, token.token());
        assertThat(producer.schedule(name + ".orders", JobRequest.builder().id("j1")
                .delay(java.time.Duration.ofHours(1)).payload(1).build()).id()).isEqualTo("j1");
        assertThat(operator.tokens()).anySatisfy(t -> {
            assertThat(t.name()).isEqualTo("app");
            assertThat(t.tenant()).isEqualTo(name);
            assertThat(t.active()).isTrue();
            assertThat(t.expiresAt()).isNotNull();
        });

        TokenInfo revoked = operator.revokeToken("app", name);
        assertThat(revoked.active()).isFalse();
        assertThatThrownBy(() -> producer.topics()).isInstanceOf(UnauthorizedException.class);
        assertThatThrownBy(() -> operator.deleteTenant(name)).isInstanceOf(ConflictException.class);
        operator.cancel(name + ".orders", "j1");
        operator.deleteTenant(name);
        assertThatThrownBy(() -> operator.tenant(name)).isInstanceOf(NotFoundException.class);
    }
}
