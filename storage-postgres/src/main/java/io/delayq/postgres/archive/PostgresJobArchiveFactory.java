package io.delayq.postgres.archive;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.delayq.core.AppliedMigration;
import io.delayq.core.JobStoreFactory;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.JobArchiveFactory;
import io.delayq.postgres.PostgresJobStoreFactory;
import io.delayq.postgres.SchemaMigrations;
import io.delayq.postgres.SharedDataSources;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code archive: {type: postgres, …}}: the archive on PostgreSQL.
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code database}</td><td>the store's, when the store is PostgreSQL</td>
 *       <td>Dropwizard's {@code DataSourceFactory}, as the store's ({@code url}, {@code user}, {@code password}, pool
 *       sizes, driver {@code properties}). Left out, the archive uses the PostgreSQL store's database
 *       ({@link #useStoreDatabase}); required otherwise. On the same URL and user as the store, both use one pool
 *       ({@link SharedDataSources}), built from the store's settings.</td></tr>
 *   <tr><td>{@code runMigrations}</td><td>true</td>
 *       <td>apply missing schema migrations at start-up (else run {@code migrate} first); store and archive share
 *       one schema history</td></tr>
 *   <tr><td>{@code completedRetention}</td><td>7 days</td><td>how long succeeded jobs of topics with
 *       {@code archiveSucceeded} are kept after they finished; at least 1 minute</td></tr>
 *   <tr><td>{@code tombstoneRetention}</td><td>30 days</td><td>how long a purged dead letter leaves a tombstone that
 *       keeps it from coming back; longer than any outage of the job store (an archived entry can stay in the store's
 *       outbox, and be written again, only while its delete cannot reach the store); at least 1 hour</td></tr>
 *   <tr><td>{@code reaperInterval}</td><td>10 seconds</td><td>how often completed jobs and tombstones past their
 *       retention are dropped (up to 100,000 of each a pass, 1,000 per statement)</td></tr>
 * </table>
 */
@JsonTypeName("postgres")
public class PostgresJobArchiveFactory implements JobArchiveFactory {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresJobArchiveFactory.class);

    /** Null until configured or taken from the store ({@link #useStoreDatabase}). */
    @Valid
    private DataSourceFactory database;

    private boolean runMigrations = true;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MINUTES)
    private Duration completedRetention = Duration.days(7);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.HOURS)
    private Duration tombstoneRetention = Duration.days(30);

    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
    private Duration reaperInterval = Duration.seconds(10);

    /** The store's default database settings (pool of 2 to 32, 5 s wait, checked on borrow at most once a second). */
    static DataSourceFactory defaultDatabase() {
        return new PostgresJobStoreFactory().getDatabase();
    }

    /**
     * When no {@code database} is configured and the store is PostgreSQL, takes the store's database settings, the
     * very object, so that both use one pool. The service calls this before {@link #build}.
     *
     * @return whether it did
     */
    @Override
    public boolean useStoreDatabase(JobStoreFactory store) {
        if (database == null && store instanceof PostgresJobStoreFactory postgres) {
            database = postgres.getDatabase();
            return true;
        }
        return false;
    }

    @Override
    public JobArchive build(LifecycleEnvironment lifecycle, HealthCheckRegistry healthChecks, MetricRegistry metrics) {
        PostgresJobArchive archive = connect(metrics);
        lifecycle.manage(new Managed() {
            @Override
            public void stop() {
                archive.close();
            }
        });
        healthChecks.register("archive", new HealthCheck() {
            @Override
            protected Result check() {
                try {
                    return Result.healthy("PostgreSQL answered, its clock reads " + Instant.ofEpochMilli(archive.now()));
                } catch (RuntimeException e) {
                    return Result.unhealthy("the archive (PostgreSQL) does not answer; dead letters wait in the"
                            + " store's outbox until it does: " + e.getMessage());
                }
            }
        });
        return archive;
    }

    /** An archive holding the shared pool until it closes; migrated first when {@code runMigrations}. */
    PostgresJobArchive connect(MetricRegistry metrics) {
        SharedDataSources.Lease pool = SharedDataSources.acquire(database(), metrics, "archive");
        try {
            if (runMigrations) {
                SchemaMigrations.applyLogged(pool.dataSource(), "PostgreSQL archive");
            }
            PostgresJobArchive archive = new PostgresJobArchive(pool.dataSource(), options(), metrics);
            archive.onClose(pool::close);
            signUnsigned(archive);
            return archive;
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /**
     * Dead letters archived before failure signatures get theirs now, so that they are grouped and filtered like the
     * others. Not being able to is no reason not to start (the archiver waits for the database): logged, and left to
     * the reaper's passes.
     */
    private static void signUnsigned(PostgresJobArchive archive) {
        try {
            archive.signUnsignedDeadLetters();
        } catch (RuntimeException e) {
            LOG.warn("Could not compute the failure signatures of older dead letters yet; the reaper will: {}",
                    e.toString());
        }
    }

    /** The {@code migrate} command: the schema of store and archive (one history). */
    @Override
    public List<AppliedMigration> migrate() {
        return SchemaMigrations.apply(database(), "PostgreSQL archive");
    }

    private DataSourceFactory database() {
        if (database == null) {
            throw new IllegalStateException("archive.database is not set: the PostgreSQL archive needs a database of"
                    + " its own unless the store is PostgreSQL too (then, left out, it is the store's)");
        }
        return database;
    }

    @JsonIgnore
    PostgresArchiveOptions options() {
        return new PostgresArchiveOptions(completedRetention.toJavaDuration(), tombstoneRetention.toJavaDuration(),
                reaperInterval.toJavaDuration(), PostgresArchiveOptions.defaults().reaperBatch());
    }

    @JsonIgnore
    void setOptions(PostgresArchiveOptions options) {
        this.completedRetention = Duration.milliseconds(options.completedRetention().toMillis());
        this.tombstoneRetention = Duration.milliseconds(options.tombstoneRetention().toMillis());
        this.reaperInterval = Duration.milliseconds(options.reaperInterval().toMillis());
    }

    /**
     * Checked when the configuration is validated, after the service offered the store's database
     * ({@link #useStoreDatabase}): so a PostgreSQL archive beside a store of another kind, without a database of its
     * own, is refused at start-up with the field named, not when it is first built.
     */
    @JsonProperty
    @NotNull(message = "is not set: give the archive a database block of its own, or run it beside store: {type:"
            + " postgres}, whose database it then shares")
    public DataSourceFactory getDatabase() {
        return database;
    }

    @JsonProperty
    public void setDatabase(DataSourceFactory database) {
        this.database = database;
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
    public Duration getReaperInterval() {
        return reaperInterval;
    }

    @JsonProperty
    public void setReaperInterval(Duration reaperInterval) {
        this.reaperInterval = reaperInterval;
    }
}
