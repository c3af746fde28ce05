package io.delayq.postgres;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.AppliedMigration;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateOutput;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.dropwizard.db.DataSourceFactory;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The schema of the job store and of the archive: versioned SQL files in {@code io/delayq/postgres/migration}
 * ({@code V<n>__<what>.sql}), applied by Flyway, recorded in {@code delayq_schema_history}. One location and one
 * history for both, so that store and archive on one database apply each version once, in one order, whichever of
 * them starts first. Flyway holds a PostgreSQL advisory lock while it migrates, so instances (and a store and an
 * archive) starting together apply each migration once.
 */
public final class SchemaMigrations {
    static final String LOCATION = "classpath:io/delayq/postgres/migration";
    static final String HISTORY_TABLE = "delayq_schema_history";
    private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrations.class);

    private SchemaMigrations() {
    }

    /**
     * The {@code migrate} command of the store's and the archive's factories: applies what is missing through the
     * database's shared pool ({@link SharedDataSources}) and logs it for {@code who}.
     */
    public static List<AppliedMigration> apply(DataSourceFactory database, String who) {
        try (SharedDataSources.Lease pool = SharedDataSources.acquire(database, new MetricRegistry(), "migrate")) {
            return applyLogged(pool.dataSource(), who);
        }
    }

    /** {@link #apply(DataSource)}, each migration that ran logged as applied by {@code who} (start-up). */
    public static List<AppliedMigration> applyLogged(DataSource dataSource, String who) {
        List<AppliedMigration> ran = apply(dataSource);
        for (AppliedMigration m : ran) {
            LOG.info("{}: applied migration V{} ({})", who, m.version(), m.description());
        }
        return ran;
    }

    /** Applies what is missing and returns what ran (nothing when the schema is current). */
    public static List<AppliedMigration> apply(DataSource dataSource) {
        MigrateResult result;
        try {
            result = flyway(dataSource).migrate();
        } catch (FlywayException e) {
            if (isConnectionFailure(e)) {
                throw new StoreException(StoreStatus.UNAVAILABLE, "PostgreSQL could not be reached to check delayq's"
                        + " schema: " + e.getMessage() + " (is PostgreSQL running and reachable?)", e);
            }
            throw new IllegalStateException("could not migrate delayq's PostgreSQL schema: " + e.getMessage(), e);
        }
        List<AppliedMigration> ran = new ArrayList<>();
        Instant now = Instant.now();
        for (MigrateOutput m : result.migrations) {
            ran.add(new AppliedMigration(Integer.parseInt(m.version), m.description, now));
        }
        return ran;
    }

    /** SQLSTATE class 08 (connection exception), or no SQL state at all under a failed connect. */
    private static boolean isConnectionFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                return true;
            }
            if (t instanceof java.net.ConnectException) {
                return true;
            }
        }
        return false;
    }

    private static Flyway flyway(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(LOCATION)
                .table(HISTORY_TABLE)
                // a database that already holds other tables (delayq sharing an application's database) is fine
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
    }
}
