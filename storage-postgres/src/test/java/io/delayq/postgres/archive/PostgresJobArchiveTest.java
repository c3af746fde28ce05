package io.delayq.postgres.archive;

import io.delayq.core.Callback;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureSignature;
import io.delayq.core.testing.Await;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.delayq.core.testing.ArchiveFixtures.PAYLOAD;
import static io.delayq.core.testing.ArchiveFixtures.deadJob;
import static io.delayq.core.testing.ArchiveFixtures.entries;
import static io.delayq.core.testing.ArchiveFixtures.entry;
import static io.delayq.core.testing.ArchiveFixtures.failedJob;
import static io.delayq.core.testing.ArchiveFixtures.succeededJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the contract cannot see: the rows as PostgreSQL holds them (tombstones, the parsed payload), values PostgreSQL
 * cannot hold, batching of purges and of the reaper, and the background reaper itself. The contract suite
 * ({@link PostgresJobArchiveContractTest}) covers the behaviour every archive promises; {@link ArchiveIndexTest} the
 * plans.
 */
class PostgresJobArchiveTest {
    private PostgresJobArchive archive;
    private String topic;

    @BeforeEach
    void open() {
        archive = connect(PostgresArchiveOptions.defaults());
        topic = newTopic();
    }

    @AfterEach
    void close() {
        archive.close();
    }

    static PostgresJobArchive connect(PostgresArchiveOptions options) {
        return PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                options);
    }

    @Test
    void aTombstoneKeepsOnlyItsKeyAndItsTimes() throws Exception {
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));
        archive.recordReplay(DeadLetter.keyOf(job), 0, new DeadLetter.Replay(1, 6_000, "a:1000:r1", null));

        assertThat(archive.purgeDeadLetters(job.ref())).isEqualTo(1);

        Map<String, Object> row = row("SELECT * FROM delayq_dead_letters WHERE key = ?", DeadLetter.keyOf(job));
        assertThat(row).containsKeys("purged_at", "expire_at");
        assertThat(row.keySet()).containsExactlyInAnyOrder("key", "purged_at", "expire_at");
        Map<String, Object> times = row("SELECT delayq_ms(expire_at) - delayq_ms(purged_at) AS kept"
                + " FROM delayq_dead_letters WHERE key = ?", DeadLetter.keyOf(job));
        assertThat(times.get("kept")).isEqualTo(Duration.ofDays(30).toMillis());
    }

    /**
     * The notice's columns (V11) as written and recorded; a NUL in its error text (an answer's body may carry one) is
     * kept as U+FFFD, not refused; a tombstone keeps none of them, and the CHECK refuses a notice on one.
     */
    @Test
    void aDeadNoticeLivesInItsLettersRowAndNotInItsTombstone() throws Exception {
        Job job = deadJob(topic, "noticed", 1_000, 5_000).withOnDead(Callback.of("https://ops.example.test/dead"));
        Job silent = deadJob(topic, "silent", 1_000, 5_000);
        archive.write(entries(job, silent));
        String key = DeadLetter.keyOf(job);
        String columns = "SELECT notice_state, notice_attempts, delayq_ms(notice_next_attempt_at) AS next_ms,"
                + " delayq_ms(notice_delivered_at) AS delivered_ms, notice_last_error, notice_last_status"
                + " FROM delayq_dead_letters WHERE key = ?";

        assertThat(row(columns, key)).containsExactlyInAnyOrderEntriesOf(Map.of("notice_state", "PENDING",
                "notice_attempts", 0, "next_ms", 5_000L));
        assertThat(row(columns, DeadLetter.keyOf(silent))).isEmpty();
        assertThat(row("SELECT job->'onDead'->>'url' AS url FROM delayq_dead_letters WHERE key = ?", key))
                .containsEntry("url", "https://ops.example.test/dead");

        DeadNotice claimed = DeadNotice.pending(5_000).claimed(65_000);
        assertThat(archive.recordNotice(key, 0, claimed)).isTrue();
        assertThat(archive.recordNotice(key, 1, claimed.failed("bad\0answer", 502, 70_000))).isTrue();
        assertThat(row(columns, key)).containsExactlyInAnyOrderEntriesOf(Map.of("notice_state", "PENDING",
                "notice_attempts", 1, "next_ms", 70_000L, "notice_last_error", "bad\uFFFDanswer",
                "notice_last_status", 502));
        assertThat(archive.recordNotice(key, 1, claimed.delivered(71_000))).isTrue();
        assertThat(row(columns, key)).containsExactlyInAnyOrderEntriesOf(Map.of("notice_state", "DELIVERED",
                "notice_attempts", 1, "next_ms", 0L, "delivered_ms", 71_000L));

        archive.purgeDeadLetters(job.ref());
        assertThat(row(columns, key)).isEmpty();
        assertThatThrownBy(() -> execute("UPDATE delayq_dead_letters SET notice_state = 'PENDING',"
                + " notice_attempts = 0, notice_next_attempt_at = now() WHERE key = ?", key))
                .isInstanceOf(SQLException.class).hasMessageContaining("notice_whole_or_absent");
    }

    @Test
    void thePayloadIsKeptAsTextAndParsedForPayloadFiltersWhenPostgresCan() throws Exception {
        Job plain = new Job(topic, "plain", "{\"orderId\":42, \"items\":[1,2]}", 4_000, JobState.DEAD, 1, 1, null,
                null, null, false, io.delayq.core.Delivery.PULL, 1_000, 5_000L, "gone", List.of());
        Job withNul = deadJob(topic, "nul", 1_000, 5_000); // PAYLOAD has a \u0000 escape, which jsonb refuses
        archive.write(entries(plain, withNul));

        assertThat(archive.deadLetter(plain.ref()).orElseThrow().job().payload())
                .isEqualTo("{\"orderId\":42, \"items\":[1,2]}");
        assertThat(archive.deadLetter(withNul.ref()).orElseThrow().job().payload()).isEqualTo(PAYLOAD);
        assertThat(row("SELECT payload_doc::text AS doc FROM delayq_dead_letters WHERE key = ?",
                DeadLetter.keyOf(plain)).get("doc")).isEqualTo("{\"items\": [1, 2], \"orderId\": 42}");
        assertThat(row("SELECT payload_doc FROM delayq_dead_letters WHERE key = ?", DeadLetter.keyOf(withNul)))
                .as("no parsed payload, and the letter archived all the same").doesNotContainKey("payload_doc");
        // what a payload-field filter asks (ArchiveIndexTest: through the GIN index)
        assertThat(row("SELECT id FROM delayq_dead_letters WHERE topic = ? AND purged_at IS NULL"
                + " AND payload_doc @> '{\"orderId\": 42}'", topic).get("id")).isEqualTo("plain");
    }

    @Test
    void aNulInAnErrorTextIsArchivedAsAReplacementCharacter() {
        Job job = new Job(topic, "nul-error", "{}", 4_000, JobState.DEAD, 1, 1, null, null, null, false,
                io.delayq.core.Delivery.PULL, 1_000, 5_000L, "bad\0byte",
                List.of(new io.delayq.core.Attempt(1, 5_000, "bad\0byte", 500)));

        archive.write(List.of(entry(job)));

        Job kept = archive.deadLetter(job.ref()).orElseThrow().job();
        assertThat(kept.lastError()).isEqualTo("bad\uFFFDbyte");
        assertThat(kept.history().get(0).error()).isEqualTo("bad\uFFFDbyte");
    }

    /** The archiver sets an entry aside on IllegalArgumentException, and waits for an outage on UNAVAILABLE. */
    @Test
    void aValuePostgresRefusesIsAnIllegalArgumentNotAnOutage() {
        Job job = deadJob(topic, "nul\0id", 1_000, 5_000);

        assertThatThrownBy(() -> archive.write(List.of(entry(job))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refused");
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)).items()).isEmpty();
    }

    @Test
    void timesBeyondWhatPostgresHoldsSelectTheSameLetters() {
        archive.write(entries(deadJob(topic, "a", 1_000, 5_000), deadJob(topic, "b", 1_000, 6_000)));

        assertThat(archive.deadLetters(new DeadLetterQuery(topic, Long.MIN_VALUE, Long.MAX_VALUE, null, 10, null))
                .items()).hasSize(2);
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)
                .withCursor(DeadLetterCursor.encode(Long.MAX_VALUE, "zzz"))).items()).hasSize(2);
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)
                .withCursor(DeadLetterCursor.encode(Long.MIN_VALUE, ""))).items()).isEmpty();
    }

    @Test
    void aPurgeOfManyLettersRunsInBatchesAndCountsThemAll() throws Exception {
        int n = PostgresJobArchive.PURGE_BATCH * 2 + 500;
        List<io.delayq.core.OutboxEntry> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(entry(deadJob(topic, "j" + i, 1_000 + i, 10_000 + i)));
        }
        archive.write(batch);

        assertThat(archive.purgeDeadLetters(DeadLetterQuery.topic(topic))).isEqualTo(n);

        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)).items()).isEmpty();
        assertThat(row("SELECT count(*) AS n FROM delayq_dead_letters WHERE key LIKE ? AND purged_at IS NOT NULL",
                topic + "/%").get("n")).isEqualTo((long) n);
    }

    @Test
    void expiryRunsToTheEndInBatches() throws Exception {
        try (PostgresJobArchive small = connect(PostgresArchiveOptions.defaults().withReaperBatch(3)
                .withCompletedRetention(Duration.ofMinutes(1)).withReaperInterval(Duration.ofHours(1)))) {
            long now = System.currentTimeMillis();
            List<io.delayq.core.OutboxEntry> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(entry(succeededJob(topic, "done" + i, now - 1_000, now)));
            }
            small.write(batch);

            small.expire(now + 120_000);

            assertThat(completed(topic)).isZero();
        }
    }

    @Test
    void theBackgroundReaperDropsExpiredRowsAndStopsWhenTheArchiveCloses() throws Exception {
        long before = reaperThreads();
        PostgresJobArchive reaping = connect(PostgresArchiveOptions.defaults().withReaperBatch(2)
                .withCompletedRetention(Duration.ofMinutes(1)).withTombstoneRetention(Duration.ofMillis(100))
                .withReaperInterval(Duration.ofMillis(50)));
        try {
            assertThat(reaperThreads()).isEqualTo(before + 1);
            long now = System.currentTimeMillis();
            List<io.delayq.core.OutboxEntry> batch = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                batch.add(entry(succeededJob(topic, "old" + i, now - 200_000, now - 120_000)));
            }
            batch.add(entry(succeededJob(topic, "fresh", now - 1_000, now)));
            batch.add(entry(deadJob(topic, "purged", 1_000, 5_000)));
            reaping.write(batch);
            assertThat(reaping.purgeDeadLetters(new JobRef(topic, "purged"))).isEqualTo(1);

            Await.until("expired completed jobs and the tombstone dropped", () -> {
                try {
                    return completed(topic) == 1 && tombstones(topic) == 0;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(reaping.find(new JobRef(topic, "fresh"))).isPresent();
        } finally {
            reaping.close();
        }
        // An executor is terminated (close returns) a moment before its worker thread has died: wait for the thread.
        Await.until("the reaper stopped with its archive", 5_000, () -> reaperThreads() == before);
    }

    /** The dashboard's columns (V5) are written with the letter, from FailureSignature.of(job) and the last attempt. */
    @Test
    void aDeadLetterRowCarriesItsSignatureAndLastStatus() throws Exception {
        Job job = failedJob(topic, "sig", 1_000, 5_000, "https://API.example.com:8443/x", 503, "busy for 20 ms", "{}");
        Job refused = failedJob(topic, "refused", 1_000, 5_000, "http://h.example.com/", null, "connection refused",
                "{}");
        archive.write(entries(job, refused));

        Map<String, Object> row = row("SELECT signature_id, signature_kind, signature_message, signature_host,"
                + " http_status FROM delayq_dead_letters WHERE key = ?", DeadLetter.keyOf(job));
        assertThat(row).containsExactlyInAnyOrderEntriesOf(Map.of("signature_id", FailureSignature.of(job).id(),
                "signature_kind", "HTTP 503", "signature_message", "busy for # ms",
                "signature_host", "api.example.com:8443", "http_status", 503));
        Map<String, Object> noAnswer = row("SELECT signature_kind, signature_host, http_status FROM delayq_dead_letters"
                + " WHERE key = ?", DeadLetter.keyOf(refused));
        assertThat(noAnswer).containsExactlyInAnyOrderEntriesOf(Map.of("signature_kind", "connect",
                "signature_host", "h.example.com"));
    }

    /**
     * Letters archived before V5 have no signature: no group nor host, status or group filter finds them until the
     * archive signs them (at start-up, and a batch per reaper pass), once; an unreadable one is passed over.
     */
    @Test
    void lettersArchivedWithoutASignatureAreSignedInBatches() throws Exception {
        archive.close(); // one whose reaper signs nothing while this test looks
        archive = connect(PostgresArchiveOptions.defaults().withReaperInterval(Duration.ofHours(1)));
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 11; i++) { // batches of 4: two full and one part
            jobs.add(failedJob(topic, "old-" + i, 1_000 + i, 10_000 + i, "http://old.example.com/cb", 502,
                    "bad gateway after " + i + " ms", "{\"n\":" + i + "}"));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));
        execute("UPDATE delayq_dead_letters SET signature_id = NULL, signature_kind = NULL, signature_message = NULL,"
                + " signature_host = NULL, http_status = NULL WHERE topic = ?", topic);
        execute("INSERT INTO delayq_dead_letters (key, topic, id, dead_at, replay_count, replays, job, payload)"
                + " VALUES (? || '/broken/1', 'x', 'broken', now(), 0, '[]', '\"not a job\"', '{}')", topic);
        DeadLetterQuery byHost = DeadLetterQuery.topic(topic).withHost("old.example.com");
        assertThat(archive.countDeadLetters(byHost)).isZero();
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic), 10, 20_000)).isEmpty();

        assertThat(archive.signUnsignedDeadLetters(4)).isEqualTo(jobs.size());

        assertThat(archive.countDeadLetters(byHost)).isEqualTo(jobs.size());
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic).withHttpStatus(502))).isEqualTo(jobs.size());
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic), 10, 20_000)).singleElement().satisfies(g -> {
            assertThat(g.signature()).isEqualTo(FailureSignature.of(jobs.get(0)));
            assertThat(g.count()).isEqualTo(jobs.size());
        });
        assertThat(archive.signUnsignedDeadLetters(4)).as("nothing left but the unreadable letter").isZero();
        execute("UPDATE delayq_dead_letters SET purged_at = now(), expire_at = now(), topic = NULL, id = NULL,"
                + " dead_at = NULL, replay_count = NULL, replays = NULL, job = NULL, payload = NULL"
                + " WHERE key = ? || '/broken/1'", topic); // leave no unreadable letter to the other tests
    }

    private static void execute(String sql, String param) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password());
             PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, param);
            s.executeUpdate();
        }
    }

    private static long reaperThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("delayq-postgres-archive-reaper")).count();
    }

    private static long completed(String topic) throws SQLException {
        return (long) row("SELECT count(*) AS n FROM delayq_completed_jobs WHERE topic = ?", topic).get("n");
    }

    private static long tombstones(String topic) throws SQLException {
        return (long) row("SELECT count(*) AS n FROM delayq_dead_letters WHERE key LIKE ? AND purged_at IS NOT NULL",
                topic + "/%").get("n");
    }

    /** The non-null columns of the first row (empty when there is none). */
    static Map<String, Object> row(String sql, String param) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password());
             PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, param);
            try (ResultSet rs = s.executeQuery()) {
                Map<String, Object> row = new HashMap<>();
                if (rs.next()) {
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        Object value = rs.getObject(i);
                        if (value != null) {
                            row.put(rs.getMetaData().getColumnLabel(i), value);
                        }
                    }
                }
                return row;
            }
        }
    }
}
