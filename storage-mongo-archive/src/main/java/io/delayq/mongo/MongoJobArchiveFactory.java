package io.delayq.mongo;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.delayq.core.AppliedMigration;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.JobArchiveFactory;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code archive: {type: mongo, …}}: the MongoDB archive, or with no {@code uri} an embedded MongoDB-wire-protocol
 * server whose data survives restarts.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code uri}</td><td>none</td><td>{@code mongodb://…} or {@code mongodb+srv://…} of a real MongoDB
 *       (replica set or sharded for production); none starts the embedded server</td></tr>
 *   <tr><td>{@code database}</td><td>{@code delayq}</td><td>database holding {@code dead_letters},
 *       {@code completed} and {@code schema_migrations}</td></tr>
 *   <tr><td>{@code embedded.port}</td><td>27027</td><td>port of the embedded server on 127.0.0.1; 0 = any free
 *       port</td></tr>
 *   <tr><td>{@code embedded.dataDir}</td><td>{@code ./data/mongo}</td><td>where the embedded server keeps its data
 *       file</td></tr>
 *   <tr><td>{@code embedded.persistent}</td><td>true</td><td>false keeps the embedded archive in memory (tests
 *       only: dead letters are then lost on restart)</td></tr>
 *   <tr><td>{@code completedRetention}</td><td>7 days</td><td>how long succeeded jobs of topics with
 *       {@code archiveSucceeded} are kept</td></tr>
 *   <tr><td>{@code tombstoneRetention}</td><td>30 days</td><td>how long a purged dead letter leaves a tombstone that
 *       keeps it from coming back; longer than any outage of the job store (an archived entry can stay in the
 *       store's outbox, and be written again, only while its delete cannot reach the store); at least 1 hour</td></tr>
 *   <tr><td>{@code runMigrations}</td><td>true</td><td>apply missing schema migrations at start-up (else run the
 *       {@code migrate} command)</td></tr>
 *   <tr><td>{@code serverSelectionTimeout}</td><td>5 seconds</td><td>how long an operation waits for a reachable
 *       server before it fails (the archiver then keeps entries in the outbox and retries); also the connect timeout,
 *       at most 10 s. The embedded server's client gets it as a remote one does ({@link MongoConnection})</td></tr>
 * </table>
 */
@JsonTypeName("mongo")
public class MongoJobArchiveFactory implements JobArchiveFactory {
    private String uri;

    @NotEmpty
    private String database = "delayq";

    @Valid
    @NotNull
    private Embedded embedded = new Embedded();

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MINUTES)
    private Duration completedRetention = Duration.days(7);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.HOURS)
    private Duration tombstoneRetention = Duration.days(30);

    private boolean runMigrations = true;

    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
    private Duration serverSelectionTimeout = Duration.seconds(5);

    /** The embedded server's settings, used only when {@code uri} is not set. */
    public static class Embedded {
        @Min(0)
        @Max(65535)
        private int port = 27027;

        @NotEmpty
        private String dataDir = "./data/mongo";

        private boolean persistent = true;

        @JsonProperty
        public int getPort() {
            return port;
        }

        @JsonProperty
        public void setPort(int port) {
            this.port = port;
        }

        @JsonProperty
        public String getDataDir() {
            return dataDir;
        }

        @JsonProperty
        public void setDataDir(String dataDir) {
            this.dataDir = dataDir;
        }

        @JsonProperty
        public boolean isPersistent() {
            return persistent;
        }

        @JsonProperty
        public void setPersistent(boolean persistent) {
            this.persistent = persistent;
        }
    }

    @Override
    public JobArchive build(LifecycleEnvironment lifecycle, HealthCheckRegistry healthChecks, MetricRegistry metrics) {
        MongoConnection connection = connect();
        try {
            if (runMigrations) {
                ArchiveMaintenance.migrate(connection.database());
            }
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
        EmbeddedMongo embedded = connection.embedded();
        var archive = new MongoJobArchive(connection.database(),
                java.time.Duration.ofMillis(completedRetention.toMilliseconds()),
                java.time.Duration.ofMillis(tombstoneRetention.toMilliseconds()),
                embedded == null ? null : embedded::commit);
        ArchiveMaintenance.signUnsigned(archive);
        if (embedded != null) {
            ArchiveMaintenance.keepJobIdDirectory(archive);
        }
        lifecycle.manage(new Managed() {
            @Override
            public void stop() {
                connection.close();
            }
        });
        healthChecks.register("archive", new ArchivePingHealthCheck(connection.database()));
        if (embedded != null) {
            ScheduledExecutorService ttl = lifecycle.scheduledExecutorService("delayq-archive-ttl").threads(1).build();
            ttl.scheduleWithFixedDelay(() -> ArchiveMaintenance.expire(archive), 1, 1, TimeUnit.MINUTES);
        }
        return archive;
    }

    /** Connects (starting the embedded server when no uri is set), without migrating. The caller closes it. */
    public MongoConnection connect() {
        return MongoConnection.open(uri, database, embedded, serverSelectionTimeout.toJavaDuration());
    }

    /**
     * The {@code migrate} command: connects (starting the embedded server when no uri is set), applies the missing
     * migrations, closes, and returns what ran.
     */
    @Override
    public List<AppliedMigration> migrate() {
        try (MongoConnection connection = connect()) {
            return ArchiveMaintenance.migrate(connection.database());
        }
    }

    @JsonProperty
    public String getUri() {
        return uri;
    }

    @JsonProperty
    public void setUri(String uri) {
        this.uri = uri;
    }

    @JsonProperty
    public String getDatabase() {
        return database;
    }

    @JsonProperty
    public void setDatabase(String database) {
        this.database = database;
    }

    @JsonProperty
    public Embedded getEmbedded() {
        return embedded;
    }

    @JsonProperty
    public void setEmbedded(Embedded embedded) {
        this.embedded = embedded;
    }

    @JsonProperty
    public Duration getCompletedRetention() {
        return completedRetention;
    }

    @JsonProperty
    public void setCompletedRetention(Duration completedRetention) {
        this.completedRetention = completedRetention;
    }

    @JsonProperty
    public Duration getTombstoneRetention() {
        return tombstoneRetention;
    }

    @JsonProperty
    public void setTombstoneRetention(Duration tombstoneRetention) {
        this.tombstoneRetention = tombstoneRetention;
    }

    @JsonProperty
    public boolean isRunMigrations() {
        return runMigrations;
    }

    @JsonProperty
    public void setRunMigrations(boolean runMigrations) {
        this.runMigrations = runMigrations;
    }

    @JsonProperty
    public Duration getServerSelectionTimeout() {
        return serverSelectionTimeout;
    }

    @JsonProperty
    public void setServerSelectionTimeout(Duration serverSelectionTimeout) {
        this.serverSelectionTimeout = serverSelectionTimeout;
    }
}
