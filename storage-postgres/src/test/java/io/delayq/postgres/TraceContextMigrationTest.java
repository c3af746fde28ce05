package io.delayq.postgres;

import io.delayq.postgres.testing.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * V8 rebuilds {@code delayq_outbox} so that {@code seq} stays its last column: outbox rows written before it keep their
 * seq (an archiver that read them deletes the right ones), new rows continue after them, and a job row, two columns
 * longer, still goes into the outbox positionally. Run in a schema of its own, migrated to V7 first.
 */
class TraceContextMigrationTest {
    private final String schema = "v8_" + UUID.randomUUID().toString().replace("-", "");

    private Flyway flyway(String target) {
        return Flyway.configure()
                .dataSource(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password())
                .locations(SchemaMigrations.LOCATION)
                .table(SchemaMigrations.HISTORY_TABLE)
                .schemas(schema)
                .target(target)
                .load();
    }

    @Test
    void outboxRowsWrittenBeforeV8KeepTheirSeqAndTheOutboxStillTakesJobRowsPositionally() throws SQLException {
        flyway("7").migrate();
        try (Connection c = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password()); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema + ", public");
            for (int i = 0; i < 3; i++) {
                s.execute("INSERT INTO delayq_outbox (topic, id, state, push, run_at, max_attempts, created_at,"
                        + " finished_at, fingerprint, payload) VALUES ('t', 'old" + i + "', 'dead', false, now(), 1,"
                        + " now(), now(), 'f', '{\"n\":" + i + "}')");
            }
            s.execute("DELETE FROM delayq_outbox WHERE id = 'old1'"); // a gap, as archived entries leave
            List<String> before = rows(s, "SELECT seq || ' ' || id || ' ' || payload FROM delayq_outbox ORDER BY seq");

            flyway("8").migrate(); // V9 rebuilt the outbox once more (DeliveryProtectionsMigrationTest)

            assertThat(rows(s, "SELECT seq || ' ' || id || ' ' || payload FROM delayq_outbox ORDER BY seq"))
                    .containsExactlyElementsOf(before);
            assertThat(rows(s, "SELECT column_name FROM information_schema.columns WHERE table_schema = '" + schema
                    + "' AND table_name = 'delayq_outbox' ORDER BY ordinal_position DESC LIMIT 3"))
                    .containsExactly("seq", "tracestate", "traceparent");

            s.execute("INSERT INTO delayq_jobs (topic, id, state, push, run_at, max_attempts, created_at, finished_at,"
                    + " fingerprint, payload, traceparent, tracestate) VALUES ('t', 'new', 'dead', false, now(), 1,"
                    + " now(), now(), 'f', '{}', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'a=1')");
            s.execute("INSERT INTO delayq_outbox SELECT j.* FROM delayq_jobs j WHERE j.id = 'new'");
            long lastOld = Long.parseLong(before.get(before.size() - 1).split(" ")[0]);
            assertThat(rows(s, "SELECT seq || ' ' || traceparent || ' ' || tracestate FROM delayq_outbox"
                    + " WHERE id = 'new'")).singleElement().satisfies(row -> {
                        assertThat(Long.parseLong(row.split(" ")[0])).isGreaterThan(lastOld);
                        assertThat(row).endsWith(" 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 a=1");
                    });
        } finally {
            try (Connection c = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                    TestPostgres.password()); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
