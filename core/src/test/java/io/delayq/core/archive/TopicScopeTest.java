package io.delayq.core.archive;

import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantQuotas;
import io.delayq.core.tenant.TopicPattern;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicScopeTest {
    private static final Tenant BILLING = new Tenant("billing", List.of(TopicPattern.of("billing.*"),
            TopicPattern.of("invoices"), TopicPattern.of("a_b-c.*")), TenantQuotas.none(), 1, List.of(), false);

    @Test
    void aTenantsScopeHoldsWhatItsPatternsMatchAndNothingElse() {
        TopicScope scope = TopicScope.of(BILLING);

        assertThat(scope.tenant()).isEqualTo("billing");
        assertThat(scope.topics()).containsExactly("invoices");
        assertThat(scope.prefixes()).containsExactly("a_b-c.", "billing.");
        for (String topic : List.of("billing.x", "billing.eu.x", "invoices", "a_b-c.x", "billing..")) {
            assertThat(scope.matches(topic)).as(topic).isTrue().isEqualTo(BILLING.owns(topic));
        }
        for (String topic : List.of("billing", "billing.", "billingx.y", "billing-x", "invoices.x", "invoice",
                "aXb-c.x", "a_bxc.x", "a_b-c", "xbilling.x")) {
            assertThat(scope.matches(topic)).as(topic).isFalse().isEqualTo(BILLING.owns(topic));
        }
        assertThat(scope.matches(null)).isFalse();
        assertThat(scope.isEmpty()).isFalse();
    }

    @Test
    void allHoldsEveryTopicAndNoneNothing() {
        assertThat(TopicScope.all().matches("anything")).isTrue();
        assertThat(TopicScope.all().unrestricted()).isTrue();
        assertThat(TopicScope.all().tenant()).isNull();
        assertThat(TopicScope.none().matches("anything")).isFalse();
        assertThat(TopicScope.none().isEmpty()).isTrue();
        assertThatThrownBy(() -> new TopicScope(true, Set.of("a"), Set.of(), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopicScope(false, Set.of(), Set.of(""), "t"))
                .hasMessageContaining("every topic");
    }

    @Test
    void theSuccessorEndsThePrefixsRange() {
        assertThat(TopicScope.successor("billing.")).isEqualTo("billing/");
        assertThat(TopicScope.successor("a_b-")).isEqualTo("a_b.");
        assertThat(TopicScope.successor("a" + Character.toString(Character.MAX_CODE_POINT))).isEqualTo("b");
        assertThat(TopicScope.successor(Character.toString(Character.MAX_CODE_POINT))).isNull();
        assertThat(TopicScope.successor("a\ud7ff")).isEqualTo("a\ue000");
    }

    @Test
    void aQueryKeepsItsScopeThroughEveryChangeAndSaysWhatAnArchiveMustAdd() {
        TopicScope scope = TopicScope.of(BILLING);
        DeadLetterQuery query = DeadLetterQuery.all().withScope(scope);

        DeadLetterQuery changed = query.withLimit(3).withCursor("c").withReplayed(true).withHost("h")
                .withHttpStatus(503).withIdPrefix("p").withPayload("a", "1").withGroup("0123456789ab");
        assertThat(changed.scope()).isEqualTo(scope);
        assertThat(query.scopeCondition()).isEqualTo(scope);
        assertThat(DeadLetterQuery.topic("billing.x").withScope(scope).scopeCondition())
                .as("a topic inside the scope is the narrower condition").isNull();
        assertThat(DeadLetterQuery.topic("shop.x").withScope(scope).scopeCondition()).isEqualTo(TopicScope.none());
        assertThat(DeadLetterQuery.all().scope()).isEqualTo(TopicScope.all());
        assertThat(DeadLetterQuery.all().scopeCondition()).isNull();
        assertThat(DeadLetterQuery.all().withScope(null).scope()).isEqualTo(TopicScope.all());
        assertThat(query.isUnfiltered()).as("a scope is not a filter").isTrue();
    }
}
