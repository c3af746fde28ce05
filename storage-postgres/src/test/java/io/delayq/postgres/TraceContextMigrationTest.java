package io.delayq.postgres;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.delayq.postgres.MigrationSchema.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * V8 rebuilds {@code delayq_outbox} so that {@code seq} stays its last column: outbox rows written before it keep their
 * seq (an archiver that read them deletes the right ones), new rows continue after them, and a job row, two columns
 * longer, still goes into the outbox positionally. Run in a schema of its own, migrated to V7 first.
 */
class TraceContextMigrationTest {

    @Test
    void outboxRowsWrittenBeforeV8KeepTheirSeqAndTheOutboxStillTakesJobRowsPositionally() throws SQLException {
        try (MigrationSchema schema = new MigrationSchema("v8"); Connection c = migratedTo7(schema);
             Statement s = c.createStatement()) {
            for (int i = 0; i < 3; i++) {
                s.execute("INSERT INTO delayq_outbox (topic, id, state, push, run_at, max_attempts, created_at,"
                        + " finished_at, fingerprint, payload) VALUES ('t', 'old" + i + "', 'dead', false, now(), 1,"
                        + " now(), now(), 'f', '{\"n\":" + i + "}')");
            }
            s.execute("DELETE FROM delayq_outbox WHERE id = 'old1'"); // a gap, as archived entries leave
            List<String> before = rows(s, "SELECT seq || ' ' || id || ' ' || payload FROM delayq_outbox ORDER BY seq");

            schema.migrateTo("8"); // V9 rebuilt the outbox once more (DeliveryProtectionsMigrationTest)

            assertThat(rows(s, "SELECT seq || ' ' || id || ' ' || payload FROM delayq_outbox ORDER BY seq"))
                    .containsExactlyElementsOf(before);
            assertThat(rows(s, "SELECT column_name FROM information_schema.columns WHERE table_schema = '" + schema.name()
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
        }
    }

    private static Connection migratedTo7(MigrationSchema schema) throws SQLException {
        schema.migrateTo("7");
        return schema.connect();
    }
}
