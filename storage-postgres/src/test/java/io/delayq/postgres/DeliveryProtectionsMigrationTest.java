package io.delayq.postgres;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static io.delayq.postgres.MigrationSchema.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * V9 adds {@code on_dead} to the jobs and rebuilds {@code delayq_outbox} so that {@code seq} stays its last column, as
 * V8 did: rows written before keep their seq, a job row with the new column still goes into the outbox positionally,
 * and new rows continue after every seq ever handed out, also when the outbox is empty and a quarantined entry holds
 * the highest. Run in schemas of their own, migrated to V8 first.
 */
class DeliveryProtectionsMigrationTest {

    @Test
    void outboxRowsKeepTheirSeqAndJobRowsWithTheirDeadNoticeTargetStillGoInPositionally() throws SQLException {
        inSchemaAtV8((s, migrate) -> {
            for (int i = 0; i < 3; i++) {
                s.execute(deadJob("old" + i, "{\"n\":" + i + "}", null).replace("delayq_jobs", "delayq_outbox"));
            }
            s.execute("DELETE FROM delayq_outbox WHERE id = 'old1'"); // a gap, as archived entries leave
            List<String> before = rows(s, "SELECT seq || ' ' || id || ' ' || payload FROM delayq_outbox ORDER BY seq");

            migrate.run();

            assertThat(rows(s, "SELECT seq || ' ' || id || ' ' || payload FROM delayq_outbox ORDER BY seq"))
                    .containsExactlyElementsOf(before);
            assertThat(rows(s, "SELECT column_name FROM information_schema.columns WHERE table_schema ="
                    + " current_schema() AND table_name = 'delayq_outbox' ORDER BY ordinal_position DESC LIMIT 2"))
                    .containsExactly("seq", "on_dead");
            assertThat(rows(s, "SELECT count(*) FROM delayq_outbox WHERE on_dead IS NOT NULL")).containsExactly("0");

            s.execute(deadJob("new", "{}", "{\"url\": \"https://ops.example.test/dead\"}"));
            s.execute("INSERT INTO delayq_outbox SELECT j.* FROM delayq_jobs j WHERE j.id = 'new'");
            long lastOld = Long.parseLong(before.get(before.size() - 1).split(" ")[0]);
            assertThat(rows(s, "SELECT seq || ' ' || (on_dead ->> 'url') FROM delayq_outbox WHERE id = 'new'"))
                    .singleElement().satisfies(row -> {
                        assertThat(Long.parseLong(row.split(" ")[0])).isGreaterThan(lastOld);
                        assertThat(row).endsWith(" https://ops.example.test/dead");
                    });
        });
    }

    @Test
    void anEmptyOutboxContinuesAfterEverySeqHandedOutNotAtOne() throws SQLException {
        inSchemaAtV8((s, migrate) -> {
            for (int i = 0; i < 5; i++) {
                s.execute(deadJob("gone" + i, "{}", null).replace("delayq_jobs", "delayq_outbox"));
            }
            // one entry quarantined under seq 40 (moved back later under it), the others archived: the outbox is empty
            s.execute("INSERT INTO delayq_quarantine (origin, topic, id, reason, entry) VALUES ('outbox', 't', 'q',"
                    + " 'unreadable', '{\"seq\": 40, \"topic\": \"t\", \"id\": \"q\"}')");
            s.execute("DELETE FROM delayq_outbox");

            migrate.run();

            s.execute(deadJob("next", "{}", null));
            s.execute("INSERT INTO delayq_outbox SELECT j.* FROM delayq_jobs j WHERE j.id = 'next'");
            assertThat(rows(s, "SELECT seq FROM delayq_outbox WHERE id = 'next'"))
                    .as("after the quarantined entry's seq, not at 1 where seq 1 to 5 were already used")
                    .containsExactly("41");
        });
    }

    private static String deadJob(String id, String payload, String onDead) {
        return "INSERT INTO delayq_jobs (topic, id, state, push, run_at, max_attempts, created_at, finished_at,"
                + " fingerprint, payload" + (onDead == null ? "" : ", on_dead") + ") VALUES ('t', '" + id + "', 'dead',"
                + " false, now(), 1, now(), now(), 'f', '" + payload + "'" + (onDead == null ? "" : ", '" + onDead + "'")
                + ")";
    }

    /** A schema of its own at V8; {@code body} gets a statement on it and what migrates it to V9. */
    private static void inSchemaAtV8(SchemaBody body) throws SQLException {
        try (MigrationSchema schema = new MigrationSchema("v9")) {
            schema.migrateTo("8");
            try (Connection c = schema.connect(); Statement s = c.createStatement()) {
                body.run(s, () -> schema.migrateTo("9"));
            }
        }
    }

    @FunctionalInterface
    private interface SchemaBody {
        void run(Statement s, Runnable migrateToV9) throws SQLException;
    }
}
