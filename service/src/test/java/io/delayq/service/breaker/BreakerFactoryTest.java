package io.delayq.service.breaker;

import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code delivery.breaker} block as YAML: {@code minTimeout}'s default, a value, and values refused. */
class BreakerFactoryTest {
    private final YamlConfigurationFactory<BreakerFactory> yaml = new YamlConfigurationFactory<>(BreakerFactory.class,
            Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private BreakerFactory parse(String text) throws Exception {
        return yaml.build(path -> new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "breaker.yml");
    }

    @Test
    void minTimeoutIsFiveSecondsUnlessSet() throws Exception {
        assertThat(parse("enabled: true").getMinTimeout().toMilliseconds()).isEqualTo(5_000);
        assertThat(parse("minTimeout: 2s").getMinTimeout().toMilliseconds()).isEqualTo(2_000);
        assertThat(parse("minTimeout: 0s").getMinTimeout().toMilliseconds()).as("every timeout counts").isZero();
    }

    @Test
    void aBadMinTimeoutIsRefusedNamingTheField() {
        assertThatThrownBy(() -> parse("minTimeout: 2h")).isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("minTimeout");
        assertThatThrownBy(() -> parse("minTimeout: soon")).hasMessageContaining("minTimeout");
        assertThatThrownBy(() -> parse("minTimeout: null")).hasMessageContaining("minTimeout");
    }

}
