package io.delayq.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobRulesTest {
    private final JobRules rules = new JobRules(16, 60_000);

    @Test
    void topicsAndIdsUseASmallAlphabet() {
        assertThat(JobRules.checkTopic("orders.eu-1_x")).isEqualTo("orders.eu-1_x");
        assertThat(JobRules.checkId("order:42.a_b-c")).isEqualTo("order:42.a_b-c");
        assertThatThrownBy(() -> JobRules.checkTopic("a:b")).hasMessageContaining("topic 'a:b' is invalid");
        assertThatThrownBy(() -> JobRules.checkTopic("{x}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkTopic("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkTopic(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkTopic("x".repeat(129))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkId("a b")).hasMessageContaining("job id 'a b' is invalid");
        assertThatThrownBy(() -> JobRules.checkId("line\nbreak")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void payloadsAreLimitedInUtf8Bytes() {
        assertThat(rules.checkPayload("{\"a\":1}")).isEqualTo("{\"a\":1}");
        assertThatThrownBy(() -> rules.checkPayload("\"ééééééééé\"")).hasMessageContaining("limit is 16 bytes");
        assertThatThrownBy(() -> rules.checkPayload(null)).hasMessageContaining("payload is required");
    }

    @Test
    void delaysAreBounded() {
        assertThat(rules.checkDelay(0)).isZero();
        assertThat(rules.checkDelay(60_000)).isEqualTo(60_000);
        assertThatThrownBy(() -> rules.checkDelay(-1)).hasMessageContaining("0 or more");
        assertThatThrownBy(() -> rules.checkDelay(60_001)).hasMessageContaining("maxDelay");
        assertThat(rules.checkRunAt(1_000, 5_000)).as("a past runAt means now").isEqualTo(1_000);
        assertThatThrownBy(() -> rules.checkRunAt(70_001, 10_000)).hasMessageContaining("maxDelay");
        assertThat(JobRules.defaults().maxPayloadBytes()).isEqualTo(64 * 1024);
    }
}
