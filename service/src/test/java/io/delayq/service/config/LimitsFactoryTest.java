package io.delayq.service.config;

import io.delayq.core.JobRules;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code limits:} block: defaults, the whole-job limit that follows the payload limit, and what is refused. */
class LimitsFactoryTest {
    private final YamlConfigurationFactory<LimitsFactory> factory = new YamlConfigurationFactory<>(
            LimitsFactory.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private LimitsFactory parse(String yaml) throws Exception {
        return factory.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "limits.yml");
    }

    @Test
    void defaultsBoundEveryPartOfAJob() throws Exception {
        JobRules rules = parse("{}").jobRules();
        assertThat(rules.maxPayloadBytes()).isEqualTo(64 * 1024);
        assertThat(rules.maxAttempts()).isEqualTo(100);
        assertThat(rules.maxCallbackHeaders()).isEqualTo(32);
        assertThat(rules.maxCallbackHeaderBytes()).isEqualTo(8 * 1024);
        assertThat(rules.maxJobBytes()).isEqualTo(128 * 1024);
        assertThat(rules.maxDelayMs()).isEqualTo(365L * 24 * 3600 * 1000);
    }

    @Test
    void theWholeJobLimitFollowsARaisedPayloadLimitUnlessSet() throws Exception {
        assertThat(parse("maxPayloadBytes: 1MiB").jobRules().maxJobBytes()).isEqualTo(1024 * 1024 + 64 * 1024);
        JobRules set = parse("{maxPayloadBytes: 1KiB, maxJobBytes: 4KiB, maxCallbackHeaders: 2,"
                + " maxCallbackHeaderBytes: 512B, maxAttempts: 5}").jobRules();
        assertThat(set.maxJobBytes()).isEqualTo(4096);
        assertThat(set.maxCallbackHeaders()).isEqualTo(2);
        assertThat(set.maxCallbackHeaderBytes()).isEqualTo(512);
        assertThat(set.maxAttempts()).isEqualTo(5);
    }

    @Test
    void aWholeJobLimitBelowThePayloadLimitIsRefused() {
        assertThatThrownBy(() -> parse("{maxPayloadBytes: 64KiB, maxJobBytes: 32KiB}"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("maxJobBytes must be at least maxPayloadBytes");
    }
}
