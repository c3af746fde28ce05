package io.delayq.service.breaker;

import io.delayq.core.TopicSettings;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.BreakerSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A topic's breaker settings over the service defaults, including bounds that cross the defaults. */
class TopicBreakerPoliciesTest {
    private static final BreakerPolicy DEFAULTS = new BreakerPolicy(true, 10, 5_000, 300_000, 20);
    private final TopicBreakerPolicies policies = new TopicBreakerPolicies(DEFAULTS);

    private static TopicSettings topic(BreakerSettings breaker) {
        return new TopicSettings(null, null, null, null, null, null, null, breaker, null, null, null);
    }

    @Test
    void aTopicWithoutSettingsHasTheDefaults() {
        assertThat(policies.of(TopicSettings.empty())).isEqualTo(DEFAULTS);
        assertThat(policies.of(topic(BreakerSettings.empty()))).isEqualTo(DEFAULTS);
    }

    @Test
    void fieldsLeftOutComeFromTheDefaults() {
        assertThat(policies.of(topic(new BreakerSettings(false, 3, null, null, null))))
                .isEqualTo(new BreakerPolicy(false, 3, 5_000, 300_000, 20));
    }

    @Test
    void aBoundTheTopicDidNotSetGivesWayToTheOneItSet() {
        assertThat(policies.of(topic(new BreakerSettings(null, null, 600_000L, null, null))))
                .as("probeInterval 10m over the default cap 5m: the cap rises")
                .isEqualTo(new BreakerPolicy(true, 10, 600_000, 600_000, 20));
        assertThat(policies.of(topic(new BreakerSettings(null, null, null, 1_000L, null))))
                .as("maxProbeInterval 1s under the default interval 5s: the interval falls")
                .isEqualTo(new BreakerPolicy(true, 10, 1_000, 1_000, 20));
    }
}
