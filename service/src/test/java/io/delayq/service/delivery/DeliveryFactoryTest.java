package io.delayq.service.delivery;

import io.delayq.core.Backoff;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeliveryFactoryTest {
    private final YamlConfigurationFactory<DeliveryFactory> factory =
            new YamlConfigurationFactory<>(DeliveryFactory.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private DeliveryFactory parse(Path dir, String yaml) throws Exception {
        Path file = dir.resolve("delivery.yml");
        Files.writeString(file, yaml);
        return factory.build(new FileConfigurationSourceProvider(), file.toString());
    }

    @Test
    void defaultsNeedOnlyASecret(@TempDir Path dir) throws Exception {
        DeliveryFactory d = parse(dir, "signingSecret: s\n");
        assertThat(d.getMaxConcurrency()).isEqualTo(256);
        assertThat(d.getMaxConcurrencyPerTopic()).isEqualTo(64);
        assertThat(d.getReserveBatch()).isEqualTo(100);
        assertThat(d.policyDefaults().timeoutMs()).isEqualTo(30_000);
        assertThat(d.policyDefaults().maxAttempts()).isEqualTo(10);
        assertThat(d.getSweepInterval().toMilliseconds()).isEqualTo(5_000);
        assertThat(d.isAllowPrivateNetworks()).isTrue();
        assertThat(d.callbackGuard().check("http://127.0.0.1/x")).isNotNull();
    }

    @Test
    void readsEverySetting(@TempDir Path dir) throws Exception {
        DeliveryFactory d = parse(dir, """
                signingSecret: s3cret
                maxConcurrency: 10
                maxConcurrencyPerTopic: 2
                reserveBatch: 5
                defaultTimeout: 7s
                defaultMaxAttempts: 4
                defaultBackoff: {type: schedule, delays: [15s, 3m]}
                sweepInterval: 1s
                shutdownGracePeriod: 3s
                ackBatchSize: 50
                ackFlushInterval: 5ms
                maxRetryAfter: 10m
                allowedCallbackHosts: [hooks.example.com, 10.0.0.0/8]
                allowPrivateNetworks: false
                """);
        assertThat(d.policyDefaults().timeoutMs()).isEqualTo(7_000);
        assertThat(d.policyDefaults().maxAttempts()).isEqualTo(4);
        assertThat(d.getDefaultBackoff()).isInstanceOf(Backoff.Schedule.class);
        assertThat(d.getDefaultBackoff().delayMillis(2, null)).isEqualTo(180_000);
        assertThat(d.getAllowedCallbackHosts()).containsExactly("hooks.example.com", "10.0.0.0/8");
        assertThatThrownBy(() -> d.callbackGuard().check("http://example.org/")).hasMessageContaining("allowedCallbackHosts");
        assertThat(d.callbackGuard().check("http://10.1.1.1/")).isNotNull();
    }

    @Test
    void refusesMissingSecretAndNonsense(@TempDir Path dir) {
        assertThatThrownBy(() -> parse(dir, "maxConcurrency: 1\n"))
                .isInstanceOf(ConfigurationValidationException.class).hasMessageContaining("signingSecret");
        assertThatThrownBy(() -> parse(dir, "signingSecret: s\nmaxConcurrency: 0\n"))
                .isInstanceOf(ConfigurationValidationException.class).hasMessageContaining("maxConcurrency");
        assertThatThrownBy(() -> parse(dir, "signingSecret: s\ndefaultBackoff: {type: exponential, initial: 1s, multiplier: 0.5, max: 1m, jitter: 0}\n"))
                .hasMessageContaining("multiplier");
    }

    /** A default lease shorter than what recording an outcome needs would make delivered jobs look failed. */
    @Test
    void refusesACallbackTimeoutTheEngineCannotFinishWithin(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> parse(dir, "signingSecret: s\ncallbackTimeout: 50ms\n"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("callbackTimeout")
                .hasMessageContaining("at least 100ms");
        assertThat(parse(dir, "signingSecret: s\ncallbackTimeout: 100ms\n").policyDefaults().timeoutMs())
                .isEqualTo(100);
    }

    @Test
    void buildRegistersLifecycleHealthCheckAndMetrics() {
        DeliveryFactory d = new DeliveryFactory();
        d.setSigningSecret("s");
        Environment environment = new Environment("test");
        try (RedisJobStore store = RedisJobStore.connect(TestRedis.sharedUri())) {
            DeliveryEngine engine = d.build(store, environment);
            assertThat(engine).isNotNull();
            assertThat(environment.lifecycle().getManagedObjects()).extracting(Object::toString)
                    .anyMatch(s -> s.contains("DeliveryEngine"));
            assertThat(environment.healthChecks().getNames()).contains("engine");
            assertThat(environment.healthChecks().runHealthCheck("engine").isHealthy()).isFalse(); // not started
            assertThat(environment.metrics().getNames()).contains("delayq.delivery.delivered", "delayq.delivery.lateness",
                    "delayq.delivery.in-flight", "delayq.delivery.callback-latency");
        }
    }
}
