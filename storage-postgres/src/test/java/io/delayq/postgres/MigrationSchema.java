package io.delayq.postgres;

import io.delayq.postgres.testing.TestPostgres;
import org.flywaydb.core.Flyway;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A schema of its own on the shared test server, for a test of one migration: brought to the version before it, given
 * rows as that version left them, then migrated on. Dropped, with everything in it, when closed.
 */
final class MigrationSchema implements AutoCloseable {
    private final String name;

    /** @param prefix the start of the schema's name, e.g. the version tested ({@code v12}) */
    MigrationSchema(String prefix) {
        this.name = prefix + "_" + UUID.randomUUID().toString().replace("-", "");
    }

    String name() {
        return name;
    }

    /** Applies the migrations up to {@code version} (creating the schema the first time). */
    void migrateTo(String version) {
        Flyway.configure()
                .dataSource(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password())
                .locations(SchemaMigrations.LOCATION)
                .table(SchemaMigrations.HISTORY_TABLE)
                .schemas(name)
                .target(version)
                .load()
                .migrate();
    }

    /** The shared server's URL with this schema as the only one on the search path (what a store connects to). */
    String jdbcUrl() {
        String shared = TestPostgres.sharedJdbcUrl();
        return shared + (shared.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), TestPostgres.user(), TestPostgres.password());
    }

    /** The first column of every row {@code sql} answers, as text. */
    static List<String> rows(Statement s, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password()); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        }
    }
}
