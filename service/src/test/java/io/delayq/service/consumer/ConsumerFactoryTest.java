package io.delayq.service.consumer;

import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code consumer:} block as YAML: its defaults, and values refused naming the field. */
class ConsumerFactoryTest {
    private final YamlConfigurationFactory<ConsumerFactory> yaml = new YamlConfigurationFactory<>(
            ConsumerFactory.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private ConsumerFactory parse(String text) throws Exception {
        return yaml.build(path -> new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "consumer.yml");
    }

    @Test
    void defaultsAreAThousandStreamsAndPollsAndSixteenWriters() throws Exception {
        ConsumerFactory consumer = parse("{}");
        assertThat(consumer.getMaxEventStreams()).isEqualTo(1_000);
        assertThat(consumer.getMaxParkedLeaseRequests()).isEqualTo(1_000);
        assertThat(consumer.getEventStreamWriters()).isEqualTo(16);
    }

    @Test
    void badValuesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> parse("maxEventStreams: 0")).isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("maxEventStreams");
        assertThatThrownBy(() -> parse("maxParkedLeaseRequests: -1")).hasMessageContaining("maxParkedLeaseRequests");
        assertThatThrownBy(() -> parse("eventStreamWriters: 100000")).hasMessageContaining("eventStreamWriters");
        assertThatThrownBy(() -> parse("maxEventStreams: many")).hasMessageContaining("maxEventStreams");
    }
}
