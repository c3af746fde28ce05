package io.delayq.core;

import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PolicyDefaultsTest {
    private final PolicyDefaults defaults = PolicyDefaults.defaults();
    private final Backoff topicBackoff = new Backoff.Schedule(List.of(Duration.seconds(5)));
    private final Callback topicCallback = Callback.of("http://topic.test/cb");
    private final TopicSettings topic = new TopicSettings(topicCallback, 4, topicBackoff, 7_000L, null, null);

    private Job job(Backoff backoff, Callback callback) {
        return new Job("t", "j", "{}", 0, JobState.SCHEDULED, 0, 2, backoff, callback, null, false, Delivery.PUSH, 0,
                null, null, null);
    }

    @Test
    void theJobWinsThenTheTopicThenTheService() {
        assertThat(defaults.maxAttempts(2, topic)).isEqualTo(2);
        assertThat(defaults.maxAttempts(null, topic)).isEqualTo(4);
        assertThat(defaults.maxAttempts(null, TopicSettings.empty())).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS);

        assertThat(defaults.timeoutMs(1_000L, topic)).isEqualTo(1_000);
        assertThat(defaults.timeoutMs(null, topic)).isEqualTo(7_000);
        assertThat(defaults.timeoutMs(null, TopicSettings.empty())).isEqualTo(PolicyDefaults.DEFAULT_TIMEOUT_MS);

        Backoff own = new Backoff.Schedule(List.of(Duration.seconds(1)));
        assertThat(defaults.retryPolicy(job(own, null), topic)).isEqualTo(new RetryPolicy(2, own));
        assertThat(defaults.retryPolicy(job(null, null), topic).backoff()).isEqualTo(topicBackoff);
        assertThat(defaults.retryPolicy(job(null, null), TopicSettings.empty()).backoff()).isEqualTo(Backoff.defaultBackoff());

        Callback ownCallback = Callback.of("http://job.test/cb");
        assertThat(defaults.callback(job(null, ownCallback), topic)).isEqualTo(ownCallback);
        assertThat(defaults.callback(job(null, null), topic)).isEqualTo(topicCallback);
        assertThat(defaults.callback(job(null, null), TopicSettings.empty())).isNull();
    }

    @Test
    void theLaneIsPushWhenSomethingWillReceiveIt() {
        assertThat(defaults.lane(true, null, TopicSettings.empty())).isEqualTo(Delivery.PUSH);
        assertThat(defaults.lane(false, Callback.of("http://x.test"), TopicSettings.empty())).isEqualTo(Delivery.PUSH);
        assertThat(defaults.lane(false, null, topic)).isEqualTo(Delivery.PUSH);
        assertThat(defaults.lane(false, null, TopicSettings.empty())).isEqualTo(Delivery.PULL);
    }

    @Test
    void refusesNonPositiveDefaults() {
        assertThatThrownBy(() -> new PolicyDefaults(0, Backoff.defaultBackoff(), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PolicyDefaults(1, Backoff.defaultBackoff(), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
