package io.delayq.service.auth;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.TopicScope;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TopicPattern;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What one token may see, decided in one place: by the tenants as they are at each call. */
class ScopeTest {
    private final List<Tenant> tenants = new ArrayList<>(List.of(tenant("billing", "billing.*"),
            tenant("mail", "mail.out")));
    private final TopicAccess access = TopicAccess.over(() -> tenants);

    private static Tenant tenant(String name, String pattern) {
        return new Tenant(name, List.of(TopicPattern.of(pattern)), TenantQuotas.none(), 1, List.of(), true);
    }

    private Scope of(String tenant) {
        return access.scopeOf(new DelayqPrincipal("t", Set.of("admin"), tenant));
    }

    @Test
    void aTenantSeesItsOwnTopicsOnly() {
        Scope billing = of("billing");
        assertThat(billing.canSee("billing.x")).isTrue();
        assertThat(billing.canSee("billing.eu.x")).isTrue();
        assertThat(billing.canSee("billing")).as("billing.* does not match billing").isFalse();
        assertThat(billing.canSee("mail.out")).as("another tenant's").isFalse();
        assertThat(billing.canSee("orders")).as("an operators' topic").isFalse();
        assertThat(billing.visible(List.of("orders", "billing.a", "mail.out", "billing.b")))
                .containsExactly("billing.a", "billing.b");
        assertThat(billing.archiveScope()).isEqualTo(TopicScope.of(tenants.get(0)));
    }

    @Test
    void anotherTenantsTopicIsNotFoundExactlyAsANeverUsedOne() {
        Scope billing = of("billing");
        assertThat(billing.notFoundUnlessVisible("billing.x")).isEqualTo("billing.x");
        StoreException theirs = catchNotFound(() -> billing.notFoundUnlessVisible("mail.out"));
        StoreException nobodys = catchNotFound(() -> billing.notFoundUnlessVisible("never.used"));
        assertThat(theirs.getMessage().replace("mail.out", "T"))
                .isEqualTo(nobodys.getMessage().replace("never.used", "T"));
    }

    @Test
    void anOperatorViewingATenantSeesItsTopicsButAuditsAsAnOperator() {
        Scope view = access.scopeOf(new DelayqPrincipal("ops", Set.of("admin"), null), " billing ");
        assertThat(view.isOperator()).isFalse();
        assertThat(view.isView()).isTrue();
        assertThat(view.tenant()).isEqualTo("billing");
        assertThat(view.visible(List.of("orders", "billing.a", "mail.out"))).containsExactly("billing.a");
        assertThat(view.archiveScope()).isEqualTo(TopicScope.of(tenants.get(0)));
        assertThat(view.auditTenant("billing.a")).isEqualTo("billing");
        assertThat(view.auditTenant(null)).as("no topic: the operator's own entry, not the viewed tenant's").isNull();
        assertThat(access.scopeOf(new DelayqPrincipal("ops", Set.of("admin"), null), "").isOperator()).isTrue();
    }

    @Test
    void theViewHeaderNeverWidensATenantsToken() {
        DelayqPrincipal mail = new DelayqPrincipal("m", Set.of("admin"), "mail");
        assertThat(access.scopeOf(mail, "mail").canSee("billing.a")).isFalse();
        assertThat(access.scopeOf(mail, "mail").isView()).isFalse();
        assertThatThrownBy(() -> access.scopeOf(mail, "billing")).isInstanceOf(jakarta.ws.rs.BadRequestException.class)
                .hasMessageContaining("'mail'");
        assertThatThrownBy(() -> access.scopeOf(new DelayqPrincipal("ops", Set.of("admin"), null), "nobody"))
                .isInstanceOf(jakarta.ws.rs.BadRequestException.class).hasMessageContaining("'nobody'");
    }

    @Test
    void anOperatorSeesEverythingAndAuditsOnTheTopicsOwner() {
        Scope operator = of(null);
        assertThat(operator.isOperator()).isTrue();
        assertThat(operator.canSee("mail.out")).isTrue();
        assertThat(operator.canSee("orders")).isTrue();
        assertThat(operator.archiveScope()).isEqualTo(TopicScope.all());
        assertThat(operator.auditTenant("billing.x")).isEqualTo("billing");
        assertThat(operator.auditTenant("orders")).isNull();
        assertThat(operator.auditTenant(null)).isNull();
        assertThat(of("mail").auditTenant(null)).as("a tenant's own action").isEqualTo("mail");
    }

    @Test
    void tenantsAreReadAtEachCallAndADeletedTenantSeesNothing() {
        Scope mail = of("mail");
        assertThat(mail.canSee("mail.in")).isFalse();
        tenants.set(1, tenant("mail", "mail.*"));
        assertThat(mail.canSee("mail.in")).as("a widened pattern applies at once").isTrue();
        tenants.remove(1);
        assertThat(mail.canSee("mail.in")).isFalse();
        assertThat(mail.archiveScope().isEmpty()).isTrue();
        assertThat(mail.archiveScope().tenant()).isEqualTo("mail");
    }

    @Test
    void aRequestWithoutATokensScopeSeesNothing() {
        assertThat(Scope.of(null).canSee("orders")).isFalse();
        assertThat(Scope.of(null).isOperator()).isFalse();
    }

    private static StoreException catchNotFound(Runnable call) {
        try {
            call.run();
        } catch (StoreException e) {
            assertThat(e.status()).isEqualTo(StoreStatus.NOT_FOUND);
            return e;
        }
        assertThatThrownBy(call::run).as("404 expected").isInstanceOf(StoreException.class);
        return null;
    }
}
