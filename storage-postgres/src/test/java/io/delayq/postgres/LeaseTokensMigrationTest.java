package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.LeaseToken;
import io.delayq.core.StoreStatus;
import io.delayq.core.testing.Await;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.delayq.postgres.MigrationSchema.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * V12 (lease tokens of 128 bits, a uuid column) with leases in flight across the upgrade: in a schema of its own at
 * V11, jobs are leased by the previous version's reserve statement ({@code before-128-bit-tokens/reserve.sql}, a copy
 * of it) with its {@code delayq_token()}; then this version's store connects, which applies V12, and acks, nacks and
 * extends those leases with the decimal tokens their holders were given, while another one expires normally.
 */
class LeaseTokensMigrationTest {
    private static final String TOPIC = "upgraded";

    @Test
    void leasesMadeBeforeV12AreAckedNackedExtendedAndExpiredAfterIt() throws Exception {
        try (MigrationSchema schema = new MigrationSchema("v12")) {
            schema.migrateTo("11");
            Map<String, String> tokens = new LinkedHashMap<>();
            List<String> outboxBefore;
            try (Connection c = schema.connect(); Statement s = c.createStatement()) {
                for (String id : List.of("acked", "nacked", "extended", "expiring")) {
                    s.execute(scheduledJob(id));
                }
                s.execute("INSERT INTO delayq_outbox (topic, id, state, push, run_at, max_attempts, created_at,"
                        + " finished_at, fingerprint, payload) VALUES ('" + TOPIC + "', 'archived', 'dead', false,"
                        + " now(), 1, now(), now(), 'f', '{}')");
                outboxBefore = rows(s, "SELECT seq || ' ' || id FROM delayq_outbox");
                // the three first with a long lease, the last with a short one, as the previous version leased them
                tokens.putAll(leaseAsThePreviousVersionDid(c, 3, 600_000));
                tokens.putAll(leaseAsThePreviousVersionDid(c, 1, 300));
            }
            assertThat(tokens).containsOnlyKeys("acked", "nacked", "extended", "expiring")
                    .allSatisfy((id, token) -> assertThat(token).matches("[0-9]{1,16}"));

            try (PostgresJobStore store = PostgresJobStore.connect(schema.jdbcUrl(), TestPostgres.user(),
                    TestPostgres.password(), PostgresStoreOptions.defaults());
                 Connection c = schema.connect(); Statement s = c.createStatement()) {
                assertThat(rows(s, "SELECT count(*) FROM delayq_schema_history WHERE version = '12' AND success"))
                        .containsExactly("1");
                assertThat(rows(s, "SELECT data_type FROM information_schema.columns WHERE table_schema = '"
                        + schema.name() + "' AND table_name = 'delayq_jobs' AND column_name = 'lease_token'"))
                        .containsExactly("uuid");
                assertThat(rows(s, "SELECT count(*) FROM pg_proc WHERE proname = 'delayq_token'"
                        + " AND pronamespace = '" + schema.name() + "'::regnamespace")).containsExactly("0");
                assertThat(rows(s, "SELECT seq || ' ' || id FROM delayq_outbox")).as("the outbox rebuilt, seq kept")
                        .containsExactlyElementsOf(outboxBefore);
                assertThat(rows(s, "SELECT column_name FROM information_schema.columns WHERE table_schema = '"
                        + schema.name() + "' AND table_name = 'delayq_outbox' AND column_name IN ('seq', 'lease_token')"
                        + " ORDER BY ordinal_position DESC"))  // later migrations add columns after them (V19)
                        .containsExactly("seq", "lease_token");

                LeaseRef acked = legacy("acked", tokens.get("acked"));
                LeaseRef nacked = legacy("nacked", tokens.get("nacked"));
                LeaseRef extended = legacy("extended", tokens.get("extended"));
                assertThat(store.ack(List.of(legacy("acked", tokens.get("nacked")))))
                        .as("another job's token").containsExactly(StoreStatus.STALE_LEASE);

                assertThat(store.ack(List.of(acked))).containsExactly(StoreStatus.OK);
                assertThat(find(store, "acked").state()).isEqualTo(JobState.SUCCEEDED);

                assertThat(store.nack(nacked, Failure.retryAfter(60_000, "receiver said no", 500)))
                        .isEqualTo(StoreStatus.OK);
                Job retried = find(store, "nacked");
                assertThat(retried.state()).isEqualTo(JobState.SCHEDULED);
                assertThat(retried.history()).singleElement()
                        .satisfies(a -> assertThat(a.error()).isEqualTo("receiver said no"));

                long deadline = store.extend(extended, 120_000);
                assertThat(deadline).isGreaterThan(store.now() + 100_000);
                assertThat(store.ack(List.of(extended))).containsExactly(StoreStatus.OK);
                assertThat(store.ack(List.of(extended))).as("spent").containsExactly(StoreStatus.STALE_LEASE);

                Await.until("the short lease's deadline passes", Duration.ofSeconds(5),
                        () -> store.nextLeaseDeadline(TOPIC) >= 0 && store.now() > store.nextLeaseDeadline(TOPIC));
                assertThat(store.expireLeases(TOPIC, 10)).isEqualTo(1);
                Job back = find(store, "expiring");
                assertThat(back.state()).isEqualTo(JobState.SCHEDULED);
                assertThat(back.attempts()).isEqualTo(1);
                assertThat(back.history()).singleElement().satisfies(a -> assertThat(a.error()).isNotBlank());
                assertThat(store.ack(List.of(legacy("expiring", tokens.get("expiring")))))
                        .containsExactly(StoreStatus.STALE_LEASE);

                Lease again = store.reserve(TOPIC, Delivery.PULL, 10, 60_000).leases().get(0);
                assertThat(again.job().id()).isEqualTo("expiring");
                assertThat(again.attempt()).isEqualTo(2);
                assertThat(again.token().isLegacy()).as("a new lease has a 128-bit token").isFalse();
                assertThat(rows(s, "SELECT lease_token FROM delayq_jobs WHERE id = 'expiring'"))
                        .containsExactly(again.token().toUuid().toString());
                assertThat(store.ack(List.of(LeaseRef.of(again)))).containsExactly(StoreStatus.OK);
            }
        }
    }

    /**
     * The previous version's reserve statement; returns id → the token it handed out, as that version's service gave
     * it to the consumer (the number's decimal text).
     */
    private static Map<String, String> leaseAsThePreviousVersionDid(Connection c, int max, long leaseMs)
            throws SQLException, IOException {
        NamedSql reserve;
        try (InputStream in = LeaseTokensMigrationTest.class.getResourceAsStream(
                "/io/delayq/postgres/before-128-bit-tokens/reserve.sql")) {
            reserve = NamedSql.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        Map<String, String> tokens = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(reserve.sql())) {
            reserve.set(ps, "topic", TOPIC);
            reserve.set(ps, "push", false);
            reserve.set(ps, "max", max);
            reserve.set(ps, "defaultLeaseMs", leaseMs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    tokens.put(rs.getString("id"), Long.toString(rs.getLong("lease_token")));
                }
            }
        }
        return tokens;
    }

    /** The lease as this version's service reads it from a holder of the previous version's token. */
    private static LeaseRef legacy(String id, String token) {
        LeaseToken parsed = LeaseToken.parse(token);
        assertThat(parsed.isLegacy()).isTrue();
        return new LeaseRef(new JobRef(TOPIC, id), parsed);
    }

    private static Job find(PostgresJobStore store, String id) {
        return store.find(new JobRef(TOPIC, id)).orElseThrow();
    }

    /** A job row as the previous version's enqueue wrote it, due now, with its counter. */
    private static String scheduledJob(String id) {
        return "INSERT INTO delayq_jobs (topic, id, state, push, run_at, max_attempts, created_at, fingerprint,"
                + " payload) VALUES ('" + TOPIC + "', '" + id + "', 'scheduled', false, delayq_now() - interval '1 second', 3,"
                + " delayq_now(), 'f', '{\"n\": 1}');"
                + " INSERT INTO delayq_counters (topic, shard, scheduled) VALUES ('" + TOPIC + "', 0, 1)"
                + " ON CONFLICT (topic, shard) DO UPDATE SET scheduled = delayq_counters.scheduled + 1";
    }

}
