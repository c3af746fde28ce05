package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.JobState;
import io.delayq.core.NewJob;
import io.delayq.core.OutboxEntry;
import io.delayq.core.testing.Await;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A row this version cannot decode ends, whole, in {@code delayq_quarantine}; the statement storage-postgres/README.md
 * gives an operator moves a repaired row back into the outbox.
 */
class PostgresQuarantineTest {
    /** The README's statement, word for word but for the bind. */
    private static final String MOVE_BACK = """
            WITH back AS (DELETE FROM delayq_quarantine WHERE seq = ? RETURNING entry)
            INSERT INTO delayq_outbox OVERRIDING SYSTEM VALUE
            SELECT r.* FROM back, jsonb_populate_record(NULL::delayq_outbox, back.entry || '{"backoff": null}') r
            """;

    private final String topic = "t-" + UUID.randomUUID();
    private final PostgresJobStore store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
            TestPostgres.password(), PostgresStoreOptions.defaults());

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void anUnreadableDeadLetterIsKeptWholeAndCanBeMovedBackOnceRepaired() throws SQLException {
        store.enqueue(NewJob.delayed(topic, "spoilt", "{\"order\":9}", 0, 3));
        String entryId;
        try (Connection c = connection()) {
            execute(c, "UPDATE delayq_jobs SET backoff = '{\"type\": \"from-a-later-version\"}' WHERE topic = ?", topic);
            Await.sleep(5);
            assertThat(store.reserve(topic, Delivery.PULL, 10, 60_000).leases()).as("nothing it can deliver").isEmpty();

            OutboxEntry unreadable = mine().get(0);
            assertThat(unreadable.isReadable()).isFalse();
            entryId = unreadable.entryId();
            assertThat(unreadable.unreadable().raw()).contains("from-a-later-version").contains("{\\\"order\\\":9}");
            store.quarantineOutbox(List.of(unreadable));
            assertThat(mine()).isEmpty();

            long seq;
            try (PreparedStatement q = c.prepareStatement("SELECT seq, origin, id, reason, entry ->> 'payload',"
                    + " entry ->> 'state', entry ->> 'seq' FROM delayq_quarantine WHERE topic = ?")) {
                q.setString(1, topic);
                try (ResultSet rs = q.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    seq = rs.getLong(1);
                    assertThat(rs.getString(2)).isEqualTo("outbox");
                    assertThat(rs.getString(3)).isEqualTo("spoilt");
                    assertThat(rs.getString(4)).contains("from-a-later-version");
                    assertThat(rs.getString(5)).isEqualTo("{\"order\":9}");
                    assertThat(rs.getString(6)).isEqualTo("dead");
                    assertThat(rs.getString(7)).isEqualTo(unreadable.entryId());
                    assertThat(rs.next()).isFalse();
                }
            }

            try (PreparedStatement back = c.prepareStatement(MOVE_BACK)) {
                back.setLong(1, seq);
                assertThat(back.executeUpdate()).isEqualTo(1);
            }
        }
        OutboxEntry repaired = mine().get(0);
        assertThat(repaired.isReadable()).isTrue();
        assertThat(repaired.entryId()).as("back under its own seq").isEqualTo(entryId);
        assertThat(repaired.job().state()).isEqualTo(JobState.DEAD);
        assertThat(repaired.job().payload()).isEqualTo("{\"order\":9}");
        assertThat(repaired.job().lastError()).contains("cannot be read");
        store.deleteOutbox(List.of(repaired));
    }

    private List<OutboxEntry> mine() {
        return store.readOutbox(100_000).stream().filter(e -> e.ref().topic().equals(topic)).toList();
    }

    private static Connection connection() throws SQLException {
        return DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());
    }

    private static void execute(Connection c, String sql, String topic) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, topic);
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
    }
}
