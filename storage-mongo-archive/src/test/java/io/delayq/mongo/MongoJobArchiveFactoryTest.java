package io.delayq.mongo;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.MongoTimeoutException;
import io.delayq.core.AppliedMigration;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.JobArchiveFactory;
import io.delayq.mongo.migration.Migrations;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.DiscoverableSubtypeResolver;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.BaseValidator;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

class MongoJobArchiveFactoryTest {
    private final ObjectMapper mapper = Jackson.newObjectMapper();
    private final YamlConfigurationFactory<JobArchiveFactory> yaml =
            new YamlConfigurationFactory<>(JobArchiveFactory.class, BaseValidator.newValidator(), mapper, "dw");

    @TempDir
    Path dataDir;

    @Test
    void isDiscoverable() {
        assertThat(new DiscoverableSubtypeResolver().getDiscoveredSubtypes()).contains(MongoJobArchiveFactory.class);
    }

    @Test
    void readsEverySetting() throws Exception {
        var factory = (MongoJobArchiveFactory) yaml.build(new ResourceConfigurationSourceProvider(), "yaml/archive.yml");

        assertThat(factory.getUri()).startsWith("mongodb://db1.example");
        assertThat(factory.getDatabase()).isEqualTo("jobs");
        assertThat(factory.getCompletedRetention()).isEqualTo(Duration.days(3));
        assertThat(factory.isRunMigrations()).isFalse();
        assertThat(factory.getServerSelectionTimeout()).isEqualTo(Duration.seconds(2));
        assertThat(factory.getTombstoneRetention()).isEqualTo(Duration.days(14));
    }

    @Test
    void defaultsToTheEmbeddedServer() {
        var factory = new MongoJobArchiveFactory();

        assertThat(factory.getUri()).isNull();
        assertThat(factory.getDatabase()).isEqualTo("delayq");
        assertThat(factory.getEmbedded().getPort()).isEqualTo(27027);
        assertThat(factory.getEmbedded().getDataDir()).isEqualTo("./data/mongo");
        assertThat(factory.getEmbedded().isPersistent()).isTrue();
        assertThat(factory.getCompletedRetention()).isEqualTo(Duration.days(7));
        assertThat(factory.getTombstoneRetention()).isEqualTo(Duration.days(30));
        assertThat(factory.isRunMigrations()).isTrue();
    }

    @Test
    void refusesBadValues() {
        assertThatThrownBy(() -> yaml.build(new ResourceConfigurationSourceProvider(), "yaml/bad-archive.yml"))
                .isInstanceOf(ConfigurationValidationException.class)
                .hasMessageContaining("database")
                .hasMessageContaining("embedded.port")
                .hasMessageContaining("tombstoneRetention");
    }

    @Test
    void anInMemoryEmbeddedArchiveWritesNoFile() throws Exception {
        var factory = new MongoJobArchiveFactory();
        factory.getEmbedded().setPort(0);
        factory.getEmbedded().setPersistent(false);
        factory.getEmbedded().setDataDir(dataDir.resolve("unused").toString());

        try (var connection = factory.connect()) {
            assertThat(ArchiveMaintenance.migrate(connection.database())).hasSize(Migrations.latestVersion());
        }
        assertThat(Files.exists(dataDir.resolve("unused"))).isFalse();
    }

    /** What the service's {@code migrate} command calls: connects, migrates, closes; a second run has nothing to do. */
    @Test
    void migrateAppliesTheMissingMigrationsOnceAndClosesItsConnection() {
        var factory = new MongoJobArchiveFactory();
        factory.getEmbedded().setPort(0);
        factory.getEmbedded().setDataDir(dataDir.resolve("migrate").toString());

        List<AppliedMigration> first = factory.migrate();
        List<AppliedMigration> second = factory.migrate();

        assertThat(first).extracting(AppliedMigration::version).containsExactly(1, 2, 3);
        assertThat(first.get(0).description()).isNotBlank();
        assertThat(second).isEmpty();
    }

    @Test
    void refusesAUriThatIsNotMongo() {
        var factory = new MongoJobArchiveFactory();
        factory.setUri("redis://127.0.0.1:6379");

        assertThatThrownBy(factory::connect).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("archive.uri");
    }

    @Test
    void buildsAMigratedEmbeddedArchiveWithAHealthCheckAndStopsIt() throws Exception {
        var factory = new MongoJobArchiveFactory();
        factory.getEmbedded().setPort(0);
        factory.getEmbedded().setDataDir(dataDir.toString());
        var lifecycle = new LifecycleEnvironment(new MetricRegistry());
        var health = new HealthCheckRegistry();

        JobArchive archive = factory.build(lifecycle, health, new MetricRegistry());

        assertThat(health.runHealthCheck("archive").isHealthy()).isTrue();
        assertThat(archive.find(new io.delayq.core.JobRef("t-x", "nothing"))).isEmpty();
        assertThat(Files.exists(dataDir.resolve(EmbeddedMongo.FILE_NAME))).isTrue();
        for (var managed : lifecycle.getManagedObjects()) {
            managed.start();
        }
        for (var managed : lifecycle.getManagedObjects()) {
            managed.stop();
        }
        assertThat(health.runHealthCheck("archive").isHealthy()).isFalse();

        // What the first build migrated is recorded in the data file.
        var again = new MongoJobArchiveFactory();
        again.getEmbedded().setPort(0);
        again.getEmbedded().setDataDir(dataDir.toString());
        try (var connection = again.connect()) {
            assertThat(Migrations.applied(connection.database())).hasSize(Migrations.latestVersion());
        }
    }

    /**
     * The embedded server's client is built as a remote one's ({@link MongoConnection}): with the server gone, a call
     * fails after {@code serverSelectionTimeout}, not after the driver's default 30 s.
     */
    @Test
    void theEmbeddedArchiveHonoursTheServerSelectionTimeout() {
        var factory = new MongoJobArchiveFactory();
        factory.getEmbedded().setPort(0);
        factory.getEmbedded().setPersistent(false);
        factory.setServerSelectionTimeout(Duration.milliseconds(300));

        try (MongoConnection connection = factory.connect()) {
            connection.database().runCommand(new Document("ping", 1));
            connection.embedded().close();

            // The first call after the server went may fail at once on its pooled socket; the next waits for a server.
            Throwable failure = null;
            long waitedMs = 0;
            for (int i = 0; i < 3 && !(failure instanceof MongoTimeoutException); i++) {
                long start = System.nanoTime();
                failure = catchThrowable(() -> connection.database().runCommand(new Document("ping", 1)));
                waitedMs = (System.nanoTime() - start) / 1_000_000;
            }

            assertThat(failure).isInstanceOf(MongoTimeoutException.class);
            assertThat(waitedMs).as("waited for a server as long as configured").isBetween(250L, 5_000L);
        }
    }
}
