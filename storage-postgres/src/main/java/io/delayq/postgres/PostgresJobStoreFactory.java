package io.delayq.postgres;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.delayq.core.AppliedMigration;
import io.delayq.core.JobStore;
import io.delayq.core.JobStoreFactory;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code store: {type: postgres, …}}: the job store on PostgreSQL.
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code database}</td><td>{@code jdbc:postgresql://127.0.0.1:5432/delayq}, user {@code delayq}</td>
 *       <td>Dropwizard's {@code DataSourceFactory}: {@code url}, {@code user}, {@code password}, pool sizes,
 *       {@code properties} for the driver. Defaults here: pool of 2 to 32 connections, 5 s wait for one, connections
 *       checked on borrow at most once a second (so a restarted server costs one failed call, not a pool of
 *       them). An archive on the same URL and user shares this pool ({@link SharedDataSources}).</td></tr>
 *   <tr><td>{@code runMigrations}</td><td>true</td>
 *       <td>apply missing schema migrations at start-up (else run {@code migrate} first)</td></tr>
 *   <tr><td>{@code finishedRetention}</td><td>24 hours</td>
 *       <td>how long a finished job stays findable, and its id taken, before the reaper drops it</td></tr>
 *   <tr><td>{@code historySize}</td><td>100</td><td>attempts kept in a job's history</td></tr>
 *   <tr><td>{@code reaperInterval}</td><td>1 second</td><td>how often finished jobs past the retention are dropped
 *       (up to 10,000 a pass, 1,000 per statement)</td></tr>
 * </table>
 */
@JsonTypeName("postgres")
public class PostgresJobStoreFactory implements JobStoreFactory {

    @Valid
    @NotNull
    private DataSourceFactory database = defaultDatabase();

    private boolean runMigrations = true;

    @NotNull
    private Duration finishedRetention = Duration.hours(24);

    @Min(1)
    @Max(1_000)
    private int historySize = 100;

    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
    private Duration reaperInterval = Duration.seconds(1);

    private static DataSourceFactory defaultDatabase() {
        DataSourceFactory db = new DataSourceFactory();
        db.setDriverClass("org.postgresql.Driver");
        db.setUrl("jdbc:postgresql://127.0.0.1:5432/delayq");
        db.setUser("delayq");
        db.setMinSize(2);
        db.setInitialSize(2);
        db.setMaxSize(32);
        db.setMaxWaitForConnection(Duration.seconds(5));
        db.setCheckConnectionOnBorrow(true);
        db.setValidationInterval(Duration.seconds(1));
        return db;
    }

    @Override
    public JobStore build(LifecycleEnvironment lifecycle, HealthCheckRegistry healthChecks, MetricRegistry metrics) {
        PostgresJobStore store = open(metrics);
        lifecycle.manage(new Managed() {
            @Override
            public void stop() {
                store.close();
            }
        });
        healthChecks.register("store", new HealthCheck() {
            @Override
            protected Result check() {
                try {
                    return Result.healthy("PostgreSQL answered, its clock reads "
                            + java.time.Instant.ofEpochMilli(store.now()));
                } catch (RuntimeException e) {
                    return Result.unhealthy("PostgreSQL does not answer: " + e.getMessage());
                }
            }
        });
        return store;
    }

    /** A store with its own pool, closed with the store (tests, tools, {@link PostgresJobStore#connect}). */
    PostgresJobStore connect() {
        return open(new MetricRegistry());
    }

    /** The pool is shared with an archive on the same database and user ({@link SharedDataSources}). */
    private PostgresJobStore open(MetricRegistry metrics) {
        SharedDataSources.Lease pool = SharedDataSources.acquire(database, metrics, "job store");
        try {
            if (runMigrations) {
                SchemaMigrations.applyLogged(pool.dataSource(), "PostgreSQL job store");
            }
            PostgresJobStore store = new PostgresJobStore(pool.dataSource(),
                    () -> SharedDataSources.openUnpooled(database), options());
            store.onClose(pool::close);
            return store;
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    @Override
    public List<AppliedMigration> migrate() {
        return SchemaMigrations.apply(database, "PostgreSQL job store");
    }

    @JsonIgnore
    PostgresStoreOptions options() {
        return new PostgresStoreOptions(finishedRetention.toJavaDuration(), historySize,
                reaperInterval.toJavaDuration(), PostgresStoreOptions.defaults().reaperBatch());
    }

    @JsonIgnore
    void setOptions(PostgresStoreOptions options) {
        this.finishedRetention = Duration.milliseconds(options.finishedRetention().toMillis());
        this.historySize = options.historySize();
        this.reaperInterval = Duration.milliseconds(options.reaperInterval().toMillis());
    }

    @JsonProperty
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
    public Duration getFinishedRetention() {
        return finishedRetention;
    }

    @JsonProperty
    public void setFinishedRetention(Duration finishedRetention) {
        this.finishedRetention = finishedRetention;
    }

    @JsonProperty
    public int getHistorySize() {
        return historySize;
    }

    @JsonProperty
    public void setHistorySize(int historySize) {
        this.historySize = historySize;
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
