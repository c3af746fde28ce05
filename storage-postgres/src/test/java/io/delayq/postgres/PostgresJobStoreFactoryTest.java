package io.delayq.postgres;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delayq.core.AppliedMigration;
import io.delayq.core.JobStore;
import io.delayq.core.JobRef;
import io.delayq.core.JobStoreFactory;
import io.delayq.core.NewJob;
import io.delayq.postgres.testing.EmbeddedPostgres;
import io.delayq.postgres.testing.TestPostgres;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.DiscoverableSubtypeResolver;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.lifecycle.JettyManaged;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.validation.BaseValidator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PostgresJobStoreFactoryTest {
    private final YamlConfigurationFactory<JobStoreFactory> factory = new YamlConfigurationFactory<>(
            JobStoreFactory.class, BaseValidator.newValidator(), Jackson.newObjectMapper(), "dw");

    private JobStoreFactory parse(String resource) throws Exception {
        return factory.build(new ResourceConfigurationSourceProvider(), "factory/" + resource);
    }

    @Test
    void isDiscoverable() {
        assertThat(new DiscoverableSubtypeResolver().getDiscoveredSubtypes()).contains(PostgresJobStoreFactory.class);
    }

    @Test
    void readsEveryField() throws Exception {
        PostgresJobStoreFactory pg = (PostgresJobStoreFactory) parse("postgres.yml");
        assertThat(pg.getDatabase().getUrl()).isEqualTo("jdbc:postgresql://db.example.test:5433/jobs");
        assertThat(pg.getDatabase().getUser()).isEqualTo("jobs");
        assertThat(pg.getDatabase().getPassword()).isEqualTo("secret");
        assertThat(pg.getDatabase().getMaxSize()).isEqualTo(12);
        assertThat(pg.isRunMigrations()).isFalse();
        PostgresStoreOptions options = pg.options();
        assertThat(options.finishedRetention()).isEqualTo(Duration.ofHours(2));
        assertThat(options.historySize()).isEqualTo(5);
        assertThat(options.reaperInterval()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void hasUsefulDefaults() {
        PostgresJobStoreFactory pg = new PostgresJobStoreFactory();
        assertThat(pg.getDatabase().getDriverClass()).isEqualTo("org.postgresql.Driver");
        assertThat(pg.getDatabase().getUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/delayq");
        assertThat(pg.isRunMigrations()).isTrue();
        assertThat(pg.options()).isEqualTo(PostgresStoreOptions.defaults());
    }

    @Test
    void refusesAnEmptyHistory() {
        assertThatThrownBy(() -> parse("bad-history.yml"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("historySize");
    }

    @Test
    void migrateAppliesTheSchemaOnceAndBuildReturnsAReadyStore(@TempDir Path dir) throws Exception {
        try (EmbeddedPostgres server = TestPostgres.startPrivate(dir)) {
            PostgresJobStoreFactory pg = new PostgresJobStoreFactory();
            pg.getDatabase().setUrl(server.jdbcUrl("postgres"));
            pg.getDatabase().setUser(server.user());
            pg.getDatabase().setPassword("");
            List<AppliedMigration> first = pg.migrate();
            assertThat(first).extracting(AppliedMigration::version).as("the store's and the archive's, one history")
                    .startsWith(1, 2, 3);
            assertThat(pg.migrate()).as("nothing left to apply").isEmpty();

            LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
            HealthCheckRegistry health = new HealthCheckRegistry();
            JobStore store = pg.build(lifecycle, health, new MetricRegistry());
            String topic = "t-" + UUID.randomUUID();
            assertThat(store.enqueue(NewJob.delayed(topic, "a", "{}", 60_000, 3)).created()).isTrue();
            HealthCheck.Result result = health.runHealthCheck("store");
            assertThat(result.isHealthy()).as(result.toString()).isTrue();
            server.kill();
            HealthCheck.Result down = health.runHealthCheck("store");
            assertThat(down.isHealthy()).as("unhealthy when the server is gone").isFalse();
            assertThat(down.getMessage()).contains("PostgreSQL does not answer");
            for (var managed : lifecycle.getManagedObjects()) {
                ((JettyManaged) managed).stop();
            }
        }
    }

    /**
     * The pool and the LISTEN connection are built from the same settings ({@link SharedDataSources}): a driver
     * property reaches both.
     */
    @Test
    void theDriverPropertiesReachThePoolAndTheListenConnection() throws Exception {
        String application = "delayq-props-" + UUID.randomUUID().toString().substring(0, 8);
        PostgresJobStoreFactory pg = new PostgresJobStoreFactory();
        pg.getDatabase().setUrl(TestPostgres.sharedJdbcUrl());
        pg.getDatabase().setUser(TestPostgres.user());
        pg.getDatabase().setPassword(TestPostgres.password());
        pg.getDatabase().setProperties(Map.of("ApplicationName", application));

        try (PostgresJobStore store = pg.connect(); AutoCloseable subscription = store.subscribe((topic, dueAt) -> { })) {
            store.find(new JobRef("t-props", "nothing"));
            try (Connection c = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                    TestPostgres.password());
                 PreparedStatement ps = c.prepareStatement("SELECT query ~ '^\\s*LISTEN ' FROM pg_stat_activity"
                         + " WHERE application_name = ?")) {
                ps.setString(1, application);
                List<Boolean> listens = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        listens.add(rs.getBoolean(1));
                    }
                }
                assertThat(listens).as("the LISTEN connection and the pool's").contains(true, false);
            }
        }
    }
}
