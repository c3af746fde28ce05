package io.delayq.mongo;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.JobArchiveFactory;
import io.delayq.core.AppliedMigration;
import io.delayq.mongo.migration.Migrations;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
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
 *       server before it fails (the archiver then keeps entries in the outbox and retries)</td></tr>
 * </table>
 */
@JsonTypeName("mongo")
public class MongoJobArchiveFactory implements JobArchiveFactory {
    private static final Logger LOG = LoggerFactory.getLogger(MongoJobArchiveFactory.class);

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

    /** A client, its database and the embedded server if one was started; closing it stops both. */
    public record Connection(MongoClient client, MongoDatabase database, EmbeddedMongo embedded) implements AutoCloseable {
        @Override
        public void close() {
            client.close();
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    @Override
    public JobArchive build(LifecycleEnvironment lifecycle, HealthCheckRegistry healthChecks, MetricRegistry metrics) {
        Connection connection = connect();
        try {
            if (runMigrations) {
                migrate(connection.database());
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
        signUnsigned(archive);
        if (embedded != null) {
            keepJobIdDirectory(archive);
        }
        lifecycle.manage(new Managed() {
            @Override
            public void stop() {
                connection.close();
            }
        });
        healthChecks.register("archive", new PingHealthCheck(connection.database()));
        if (embedded != null) {
            // The embedded server has no TTL monitor; do its job.
            ScheduledExecutorService ttl = lifecycle.scheduledExecutorService("delayq-archive-ttl").threads(1).build();
            ttl.scheduleWithFixedDelay(() -> expire(archive), 1, 1, TimeUnit.MINUTES);
        }
        return archive;
    }

    /** Connects (starting the embedded server when no uri is set), without migrating. The caller closes it. */
    public Connection connect() {
        EmbeddedMongo embedded = null;
        String connectionString = uri;
        if (connectionString == null || connectionString.isBlank()) {
            embedded = EmbeddedMongo.start(this.embedded.getPort(),
                    this.embedded.isPersistent() ? Path.of(this.embedded.getDataDir()) : null);
            connectionString = embedded.uri();
        }
        ConnectionString parsed;
        try {
            parsed = new ConnectionString(connectionString);
        } catch (IllegalArgumentException e) {
            if (embedded != null) {
                embedded.close();
            }
            throw new IllegalArgumentException("archive.uri '" + connectionString + "' is not a MongoDB connection string"
                    + " (mongodb://host:port or mongodb+srv://host): " + e.getMessage(), e);
        }
        long selectionMs = serverSelectionTimeout.toMilliseconds();
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(parsed)
                .applyToClusterSettings(b -> b.serverSelectionTimeout(selectionMs, TimeUnit.MILLISECONDS))
                .applyToSocketSettings(b -> b.connectTimeout((int) Math.min(selectionMs, 10_000), TimeUnit.MILLISECONDS))
                .build());
        return new Connection(client, client.getDatabase(database), embedded);
    }

    /**
     * The {@code migrate} command: connects (starting the embedded server when no uri is set), applies the missing
     * migrations, closes, and returns what ran.
     */
    @Override
    public List<AppliedMigration> migrate() {
        try (Connection connection = connect()) {
            return migrate(connection.database());
        }
    }

    /**
     * Applies missing migrations and logs what ran; then makes sure of the dashboard's dead-letter indexes
     * ({@link DeadLetterIndexes}: {@code createIndex}, nothing to do when they are there).
     */
    public static List<AppliedMigration> migrate(MongoDatabase database) {
        List<AppliedMigration> ran = Migrations.apply(database);
        DeadLetterIndexes.ensure(database);
        if (!ran.isEmpty()) {
            LOG.info("Archive schema migrated: applied {}", ran);
        }
        return ran;
    }

    /**
     * Dead letters written before failure signatures get theirs now, so that they are grouped and filtered like the
     * others. An archive that cannot be reached is no reason not to start (the archiver waits for it): logged, and
     * done at the next start.
     */
    private static void signUnsigned(MongoJobArchive archive) {
        try {
            archive.signUnsignedDeadLetters();
        } catch (RuntimeException e) {
            LOG.warn("Could not compute the failure signatures of older dead letters; they are left out of failure"
                    + " groups and of host, status, group and payload filters until the next start: {}", e.toString());
        }
    }

    /**
     * The embedded server answers a query from an index only for a unique one: the archive keeps a directory of its job
     * ids so that a lookup of an unknown job is one key lookup rather than a scan (see {@link ArchivedJobIds}). Until
     * it has listed what is stored, find searches as before: a failure here is logged, and tried again at the next start.
     */
    private static void keepJobIdDirectory(MongoJobArchive archive) {
        try {
            archive.keepJobIdDirectory();
        } catch (RuntimeException e) {
            LOG.warn("Could not list the job ids of the archived records; a GET of a job the store has forgotten searches"
                    + " the whole archive until the next start: {}", e.toString());
        }
    }

    private static void expire(MongoJobArchive archive) {
        try {
            long now = System.currentTimeMillis();
            archive.expireCompleted(now);
            archive.expireTombstones(now);
            // The embedded server has no TTL monitor: operator records past their retention go here too.
            archive.operatorLog().expire(now);
        } catch (RuntimeException e) {
            LOG.warn("Could not remove completed jobs, tombstones and operator records past their retention; will try"
                    + " again: {}", e.toString());
        }
    }

    /** Healthy while the archive answers a ping. */
    static final class PingHealthCheck extends HealthCheck {
        private final MongoDatabase database;

        PingHealthCheck(MongoDatabase database) {
            this.database = database;
        }

        @Override
        protected Result check() {
            try {
                database.runCommand(new Document("ping", 1));
                return Result.healthy();
            } catch (RuntimeException e) {
                return Result.unhealthy("the archive (MongoDB) does not answer; dead letters wait in the store's"
                        + " outbox until it does: " + e.getMessage());
            }
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
