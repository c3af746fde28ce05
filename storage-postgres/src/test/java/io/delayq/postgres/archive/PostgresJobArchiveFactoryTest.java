package io.delayq.postgres.archive;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delayq.core.AppliedMigration;
import io.delayq.core.JobRef;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.JobArchiveFactory;
import io.delayq.postgres.PostgresJobStoreFactory;
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
import java.time.Duration;
import java.util.List;

import static io.delayq.core.testing.ArchiveFixtures.deadJob;
import static io.delayq.core.testing.ArchiveFixtures.entry;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PostgresJobArchiveFactoryTest {
    private final YamlConfigurationFactory<JobArchiveFactory> yaml = new YamlConfigurationFactory<>(
            JobArchiveFactory.class, BaseValidator.newValidator(), Jackson.newObjectMapper(), "dw");

    private JobArchiveFactory parse(String resource) throws Exception {
        return yaml.build(new ResourceConfigurationSourceProvider(), "factory/" + resource);
    }

    @Test
    void isDiscoverable() {
        assertThat(new DiscoverableSubtypeResolver().getDiscoveredSubtypes())
                .contains(PostgresJobArchiveFactory.class);
    }

    @Test
    void readsEveryField() throws Exception {
        PostgresJobArchiveFactory pg = (PostgresJobArchiveFactory) parse("archive.yml");
        assertThat(pg.getDatabase().getUrl()).isEqualTo("jdbc:postgresql://db.example.test:5433/archive");
        assertThat(pg.getDatabase().getUser()).isEqualTo("archive");
        assertThat(pg.getDatabase().getPassword()).isEqualTo("secret");
        assertThat(pg.getDatabase().getMaxSize()).isEqualTo(12);
        assertThat(pg.isRunMigrations()).isFalse();
        PostgresArchiveOptions options = pg.options();
        assertThat(options.completedRetention()).isEqualTo(Duration.ofDays(3));
        assertThat(options.tombstoneRetention()).isEqualTo(Duration.ofHours(12));
        assertThat(options.reaperInterval()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void hasTheMongoArchivesRetentionsAndNoDatabaseOfItsOwn() {
        PostgresJobArchiveFactory pg = new PostgresJobArchiveFactory();
        assertThat(pg.getDatabase()).isNull();
        assertThat(pg.isRunMigrations()).isTrue();
        assertThat(pg.options()).isEqualTo(PostgresArchiveOptions.defaults());
    }

    @Test
    void refusesATombstoneRetentionUnderAnHour() {
        assertThatThrownBy(() -> parse("bad-archive-tombstones.yml"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("tombstoneRetention");
    }

    @Test
    void withoutADatabaseItTakesThePostgresStoresAndOnlyThat() {
        PostgresJobStoreFactory store = new PostgresJobStoreFactory();
        PostgresJobArchiveFactory pg = new PostgresJobArchiveFactory();
        assertThat(pg.useStoreDatabase(null)).isFalse();
        assertThatThrownBy(() -> pg.build(new LifecycleEnvironment(new MetricRegistry()), new HealthCheckRegistry(),
                new MetricRegistry())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("archive.database");

        assertThat(pg.useStoreDatabase(store)).isTrue();
        assertThat(pg.getDatabase()).isSameAs(store.getDatabase());

        PostgresJobArchiveFactory own = new PostgresJobArchiveFactory();
        own.setDatabase(PostgresJobArchiveFactory.defaultDatabase());
        assertThat(own.useStoreDatabase(store)).as("a database of its own stays").isFalse();
        assertThat(own.getDatabase()).isNotSameAs(store.getDatabase());
    }

    @Test
    void anUnreachableDatabaseIsUnavailableAtBuild() {
        PostgresJobArchiveFactory pg = new PostgresJobArchiveFactory();
        pg.setDatabase(PostgresJobArchiveFactory.defaultDatabase());
        pg.getDatabase().setUrl("jdbc:postgresql://127.0.0.1:1/delayq?connectTimeout=1");
        assertThatThrownBy(() -> pg.build(new LifecycleEnvironment(new MetricRegistry()), new HealthCheckRegistry(),
                new MetricRegistry())).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE));
    }

    @Test
    void migrateAppliesTheSchemaOnceAndBuildReturnsAReadyArchive(@TempDir Path dir) throws Exception {
        try (EmbeddedPostgres server = TestPostgres.startPrivate(dir)) {
            PostgresJobArchiveFactory pg = new PostgresJobArchiveFactory();
            pg.setDatabase(PostgresJobArchiveFactory.defaultDatabase());
            pg.getDatabase().setUrl(server.jdbcUrl("postgres"));
            pg.getDatabase().setUser(server.user());
            pg.getDatabase().setPassword("");
            List<AppliedMigration> first = pg.migrate();
            assertThat(first).extracting(AppliedMigration::version).as("the store's and the archive's, one history")
                    .startsWith(1, 2, 3);
            assertThat(pg.migrate()).as("nothing left to apply").isEmpty();

            LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
            HealthCheckRegistry health = new HealthCheckRegistry();
            JobArchive archive = pg.build(lifecycle, health, new MetricRegistry());
            String topic = newTopic();
            archive.write(List.of(entry(deadJob(topic, "a", 1_000, 5_000))));
            assertThat(archive.deadLetter(new JobRef(topic, "a"))).isPresent();
            HealthCheck.Result result = health.runHealthCheck("archive");
            assertThat(result.isHealthy()).as(result.toString()).isTrue();

            server.kill();
            HealthCheck.Result down = health.runHealthCheck("archive");
            assertThat(down.isHealthy()).as("unhealthy when the server is gone").isFalse();
            assertThat(down.getMessage()).contains("outbox");
            assertThatThrownBy(() -> archive.write(List.of(entry(deadJob(topic, "b", 1_000, 5_000)))))
                    .isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE));

            server.restart();
            archive.write(List.of(entry(deadJob(topic, "b", 1_000, 5_000))));
            assertThat(archive.deadLetter(new JobRef(topic, "b"))).as("the pool recovered by itself").isPresent();
            assertThat(health.runHealthCheck("archive").isHealthy()).isTrue();
            for (var managed : lifecycle.getManagedObjects()) {
                ((JettyManaged) managed).getManaged().stop();
            }
        }
    }
}
