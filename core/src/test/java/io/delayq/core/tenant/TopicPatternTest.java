package io.delayq.core.tenant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicPatternTest {

    @Test
    void aWildcardMatchesEveryTopicUnderItsPrefixButNotThePrefixItself() {
        TopicPattern billing = TopicPattern.of("billing.*");
        assertThat(billing.matches("billing.x")).isTrue();
        assertThat(billing.matches("billing.eu.x")).isTrue();
        assertThat(billing.matches("billing")).isFalse();
        assertThat(billing.matches("billing.")).isFalse();
        assertThat(billing.matches("billingx")).isFalse();
        assertThat(billing.matches("other.billing.x")).isFalse();
        assertThat(billing.prefix()).isEqualTo("billing.");
    }

    @Test
    void aNameMatchesOnlyItself() {
        TopicPattern orders = TopicPattern.of("orders");
        assertThat(orders.matches("orders")).isTrue();
        assertThat(orders.matches("orders.x")).isFalse();
        assertThat(orders.isWildcard()).isFalse();
    }

    @Test
    void patternsOverlapWhenSomeTopicMatchesBoth() {
        assertThat(TopicPattern.of("billing.*").overlaps(TopicPattern.of("billing.eu.*"))).isTrue();
        assertThat(TopicPattern.of("billing.eu.*").overlaps(TopicPattern.of("billing.*"))).isTrue();
        assertThat(TopicPattern.of("billing.*").overlaps(TopicPattern.of("billing.x"))).isTrue();
        assertThat(TopicPattern.of("billing.x").overlaps(TopicPattern.of("billing.*"))).isTrue();
        assertThat(TopicPattern.of("billing.x").overlaps(TopicPattern.of("billing.x"))).isTrue();

        assertThat(TopicPattern.of("billing.*").overlaps(TopicPattern.of("billing"))).isFalse();
        assertThat(TopicPattern.of("billing.*").overlaps(TopicPattern.of("billingx.*"))).isFalse();
        assertThat(TopicPattern.of("billing.*").overlaps(TopicPattern.of("shipping.*"))).isFalse();
        assertThat(TopicPattern.of("a.b").overlaps(TopicPattern.of("a.c"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "*", ".*", "bill*", "billing.*.x", "billing.**", "a b.*", "..", "...*", "../*"})
    void whatIsNotATopicOrATopicAndDotStarIsRefused(String text) {
        assertThatThrownBy(() -> TopicPattern.of(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pattern");
    }

    @Test
    void aPatternIsItsTextInJson() throws Exception {
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        assertThat(mapper.writeValueAsString(TopicPattern.of("billing.*"))).isEqualTo("\"billing.*\"");
        assertThat(mapper.readValue("\"billing.*\"", TopicPattern.class)).isEqualTo(TopicPattern.of("billing.*"));
    }
}
