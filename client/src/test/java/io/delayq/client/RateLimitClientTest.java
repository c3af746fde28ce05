package io.delayq.client;

import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A topic's rate limit through the Java client against the running service: set, read back, refused, removed. */
@ExtendWith(DropwizardExtensionsSupport.class)
class RateLimitClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    @Test
    void aTopicsRateLimitIsSetReadAndRemoved() {
        DelayqClient client = TestService.client(APP);
        String topic = TestService.topic();

        TopicInfo updated = client.updateTopic(topic, TopicSettingsUpdate.create().rateLimit(50, 10));
        assertThat(updated.settings().rateLimit()).isEqualTo(RateLimit.of(50, 10));
        assertThat(client.topic(topic).settings().rateLimit()).isEqualTo(RateLimit.of(50, 10));

        assertThatThrownBy(() -> client.updateTopic(topic, TopicSettingsUpdate.create().rateLimit(0, 10)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("rateLimit.perSecond");

        client.updateTopic(topic, TopicSettingsUpdate.create().reset("rateLimit"));
        assertThat(client.topic(topic).settings().rateLimit()).isNull();
    }
}
