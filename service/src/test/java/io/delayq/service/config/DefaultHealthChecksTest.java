package io.delayq.service.config;

import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.health.DefaultHealthFactory;
import io.dropwizard.health.HealthCheckConfiguration;
import io.dropwizard.health.HealthCheckType;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code health:} block: a configuration without it gets delayq's scheduled checks (the store and the engine
 * critical, the archive not), one with it keeps the defaults for every check its list does not name.
 */
class DefaultHealthChecksTest {
    private final YamlConfigurationFactory<DelayqConfiguration> factory = new YamlConfigurationFactory<>(
            DelayqConfiguration.class, Validators.newValidator(), DelayqApplication.configure(Jackson.newObjectMapper()),
            "dw");

    @Test
    void withoutAHealthBlockTheStoreAndTheEngineAreCriticalAndTheArchiveIsNot() throws Exception {
        Map<String, HealthCheckConfiguration> checks = checks(parse("delivery: {signingSecret: s}\n"));

        assertThat(checks).as("never unhealthy, callback-endpoints and dead-notices are not scheduled")
                .containsOnlyKeys("store", "engine", "deadlocks", "archive", "archiver");
        assertThat(checks.get("store").isCritical()).isTrue();
        assertThat(checks.get("engine").isCritical()).isTrue();
        assertThat(checks.get("deadlocks").getType()).as("a restart cures it: liveness").isEqualTo(HealthCheckType.ALIVE);
        assertThat(checks.get("archive").isCritical()).isFalse();
        assertThat(checks.get("archiver").isCritical()).isFalse();
        assertThat(checks.get("store").getSchedule().getCheckInterval()).isEqualTo(Duration.seconds(2));
        assertThat(checks.get("store").getSchedule().getDowntimeInterval())
                .as("an unhealthy check is asked as often: the instance is back within seconds")
                .isEqualTo(Duration.seconds(2));
    }

    @Test
    void aHealthBlockReplacesTheChecksItNamesAndKeepsTheOthers() throws Exception {
        DelayqConfiguration config = parse("""
                delivery: {signingSecret: s}
                health:
                  delayedShutdownHandlerEnabled: true
                  healthChecks:
                    - name: archive
                      critical: true
                      schedule: {checkInterval: 10s}
                """);
        Map<String, HealthCheckConfiguration> checks = checks(config);

        assertThat(checks.get("archive").isCritical()).as("the block's own").isTrue();
        assertThat(checks.get("archive").getSchedule().getCheckInterval()).isEqualTo(Duration.seconds(10));
        assertThat(checks.get("store").isCritical()).as("left out: the default").isTrue();
        assertThat(checks).containsKeys("engine", "deadlocks", "archiver");
        assertThat(((DefaultHealthFactory) config.getHealthFactory().orElseThrow()).isDelayedShutdownHandlerEnabled())
                .isTrue();
        assertThat(checks(config)).as("asking again adds nothing").hasSameSizeAs(checks);
    }

    @Test
    void theRootConfigSchedulesTheDefaultCriticality() throws Exception {
        Path fromModule = Path.of("..", "config.yml");
        Path root = Files.exists(fromModule) ? fromModule : Path.of("config.yml");
        DelayqConfiguration config = factory.build(new SubstitutingSourceProvider(new FileConfigurationSourceProvider(),
                new EnvironmentVariableSubstitutor(false)), root.toString());
        Map<String, HealthCheckConfiguration> checks = checks(config);
        Map<String, HealthCheckConfiguration> defaults = DefaultHealthChecks.defaults().stream()
                .collect(Collectors.toMap(HealthCheckConfiguration::getName, Function.identity()));

        assertThat(checks).containsOnlyKeys(defaults.keySet());
        checks.forEach((name, check) -> {
            assertThat(check.isCritical()).as(name).isEqualTo(defaults.get(name).isCritical());
            assertThat(check.getType()).as(name).isEqualTo(defaults.get(name).getType());
            assertThat(check.getSchedule()).as(name).isEqualTo(defaults.get(name).getSchedule());
        });
    }

    private static Map<String, HealthCheckConfiguration> checks(DelayqConfiguration config) {
        DefaultHealthFactory health = (DefaultHealthFactory) config.getHealthFactory().orElseThrow();
        assertThat(health.isEnabled()).isTrue();
        return health.getHealthCheckConfigurations().stream()
                .collect(Collectors.toMap(HealthCheckConfiguration::getName, Function.identity()));
    }

    private DelayqConfiguration parse(String yaml) throws Exception {
        return factory.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "inline.yml");
    }
}
