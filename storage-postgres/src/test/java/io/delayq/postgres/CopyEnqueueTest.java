package io.delayq.postgres;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.EnqueueResult;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreStatus;
import io.delayq.core.TraceContext;
import io.delayq.postgres.Rows.Created;
import io.delayq.postgres.testing.TestPostgres;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The enqueue by COPY ({@link CopyEnqueue}), the path of batches of {@value BatchTransitions#COPY_MIN_BATCH} jobs or
 * more: it must write exactly the rows {@code enqueue.sql} writes, keep the counters and wake-ups, write nothing when
 * one id of the batch exists (the store then answers the batch through {@code enqueue.sql}), and leave nothing, not
 * even an open transaction, when PostgreSQL refuses a row.
 */
class CopyEnqueueTest {
    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();
    private static PostgresJobStore store;

    @BeforeAll
    static void connect() {
        store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void writesEveryColumnAsEnqueueSqlDoes() throws SQLException {
        String copied = topic();
        String inserted = topic();
        store.enqueue(List.of(NewJob.delayed(copied, "first", "{}", 0, 1), NewJob.delayed(inserted, "first", "{}", 0, 1)));
        List<NewJob> viaCopy = jobs(copied, 100);
        List<NewJob> viaInsert = jobs(inserted, 100);

        List<Created> created = copy(viaCopy).orElseThrow();
        for (int from = 0; from < viaInsert.size(); from += 10) { // below COPY_MIN_BATCH: enqueue.sql
            assertThat(store.enqueue(viaInsert.subList(from, from + 10))).allMatch(EnqueueResult::created);
        }

        Map<String, StoredRow> copiedRows = rows(copied);
        Map<String, StoredRow> insertedRows = rows(inserted);
        assertThat(copiedRows).hasSize(101);
        for (NewJob job : viaCopy) {
            StoredRow row = copiedRows.get(job.id());
            StoredRow twin = insertedRows.get(job.id());
            assertThat(row.columns()).as("every column but topic, run_at and created_at of %s", job.id())
                    .isEqualTo(twin.columns());
            if (job.delayMs() != null) {
                assertThat(row.runAtMs() - row.createdAtMs()).as("delay of %s", job.id()).isEqualTo(job.delayMs());
            } else {
                assertThat(row.runAtMs()).as("run time of %s", job.id()).isEqualTo(job.runAtMs());
            }
        }
        assertThat(created).hasSize(100).allSatisfy(c -> {
            StoredRow row = copiedRows.get(c.id());
            assertThat(c.runAt()).isEqualTo(row.runAtMs());
            assertThat(c.createdAt()).isEqualTo(row.createdAtMs());
        });
        assertThat(viaCopy).extracting(job -> copiedRows.get(job.id()).createdAtMs())
                .as("one clock reading for the batch").containsOnly(created.get(0).createdAt());
        assertThat(store.stats(copied).scheduled()).isEqualTo(101);
        assertThat(store.stats(inserted).scheduled()).isEqualTo(101);
    }

    @Test
    void aBatchWithAnExistingIdWritesNothingAndTheStoreAnswersItThroughEnqueueSql() throws SQLException {
        String topic = topic();
        List<NewJob> first = jobs(topic, 100);
        assertThat(store.enqueue(first)).allMatch(r -> r.status() == StoreStatus.OK && r.created());

        List<NewJob> again = new ArrayList<>(first.subList(0, 98));
        NewJob changed = first.get(98);
        again.add(new NewJob(topic, changed.id(), "{\"another\":\"payload\"}", 5_000L, null, 3, null, null, null, false,
                Delivery.PULL));
        again.add(NewJob.delayed(topic, "new-one", "{}", 5_000, 3));
        assertThat(copy(again)).as("the COPY fails as a whole").isEmpty();
        assertThat(rows(topic)).as("nothing of it written").hasSize(100).doesNotContainKey("new-one");
        assertThat(store.stats(topic).scheduled()).isEqualTo(100);

        List<EnqueueResult> results = store.enqueue(again);
        assertThat(results.subList(0, 98)).allMatch(r -> r.status() == StoreStatus.OK && !r.created());
        assertThat(results.get(98).status()).isEqualTo(StoreStatus.CONFLICT);
        assertThat(results.get(99).status()).isEqualTo(StoreStatus.OK);
        assertThat(results.get(99).created()).isTrue();
        assertThat(store.stats(topic).scheduled()).isEqualTo(101);
    }

    @Test
    void wakesEachLaneWhoseEarliestRunTimeMovesEarlier() throws Exception {
        String topic = topic();
        BlockingQueue<Long> wakes = new LinkedBlockingQueue<>();
        try (AutoCloseable subscription = store.subscribe(new StoreListener() {
            @Override
            public void onWake(String t, long dueAt) {
                if (t.equals(topic)) {
                    wakes.add(dueAt);
                }
            }
        })) {
            long now = store.now();
            List<NewJob> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                NewJob job = NewJob.at(topic, "a" + i, "{}", now + 3_600_000 + i * 1_000L, 3);
                batch.add(i % 2 == 0 ? job : job.withDelivery(Delivery.PUSH));
            }
            copy(batch).orElseThrow();
            assertThat(List.of(poll(wakes), poll(wakes))).as("one per lane, at its earliest run time")
                    .containsExactlyInAnyOrder(now + 3_600_000, now + 3_601_000);

            List<NewJob> later = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                later.add(NewJob.at(topic, "b" + i, "{}", now + 7_200_000 + i, 3));
            }
            copy(later).orElseThrow();
            List<NewJob> earlier = new ArrayList<>(later.subList(0, 99));
            earlier.replaceAll(j -> NewJob.at(topic, "c" + j.id(), "{}", j.runAtMs(), 3));
            earlier.add(NewJob.at(topic, "c-first", "{}", now + 60_000, 3));
            copy(earlier).orElseThrow();
            assertThat(poll(wakes)).as("the later batch woke nobody; the next one's earliest job did")
                    .isEqualTo(now + 60_000);
            assertThat(store.stats(topic).scheduled()).isEqualTo(300);
        }
    }

    @Test
    void aRowPostgresRefusesLeavesNothingAndTheConnectionUsable() {
        String topic = topic();
        List<NewJob> batch = jobs(topic, 100);
        NewJob bad = batch.get(50);
        batch.set(50, new NewJob(topic, bad.id(), "{\"nul\":\"\u0000\"}", 1_000L, null, 3, null, null, null, false,
                Delivery.PULL));

        for (int round = 0; round < 40; round++) { // more rounds than the pool has connections
            assertThatThrownBy(() -> store.enqueue(batch)).isInstanceOf(StoreException.class)
                    .satisfies(e -> assertThat(((StoreException) e).status()).isEqualTo(StoreStatus.UNAVAILABLE));
        }
        assertThat(store.stats(topic).scheduled()).isZero();
        assertThat(store.find(batch.get(0).ref())).isEmpty();

        batch.set(50, bad);
        assertThat(store.enqueue(batch)).allMatch(EnqueueResult::created);
        assertThat(store.stats(topic).scheduled()).isEqualTo(100);
    }

    /** Jobs that between them set every option, in the order the store sends them (sorted by id). */
    private static List<NewJob> jobs(String topic, int n) {
        List<NewJob> jobs = new ArrayList<>();
        long in2030 = 1_893_456_000_000L;
        for (int i = 0; i < n; i++) {
            boolean at = i % 3 == 0;
            jobs.add(new NewJob(topic, String.format("j%03d", i),
                    "{\"n\":" + i + ",\"text\":\"é € \uD83D\uDE00 \\\"quoted\\\" back\\\\slash\ttab\"}\n",
                    at ? null : 250L * i, at ? in2030 + i : null, 1 + i % 5,
                    i % 4 == 0 ? new Backoff.Schedule(List.of(Duration.seconds(5), Duration.minutes(1))) : null,
                    i % 2 == 0 ? new Callback("http://127.0.0.1:9/cb/" + i, Map.of("X-Order", "o" + i)) : null,
                    i % 5 == 0 ? 1_500L + i : null, i % 7 == 0, i % 2 == 0 ? Delivery.PUSH : Delivery.PULL,
                    i % 3 == 1 ? new TraceContext("00-0af7651916cd43dd8448eb211c80319c-b7ad6b71692033" + String.format(
                            "%02x", i % 256) + "-01", i % 6 == 1 ? "vendor=value" : null) : null,
                    i % 4 == 1 ? Callback.of("http://127.0.0.1:9/dead") : null));
        }
        return jobs;
    }

    private static Optional<List<Created>> copy(List<NewJob> jobs) throws SQLException {
        List<String> fingerprints = jobs.stream().map(NewJob::fingerprint).toList();
        try (Connection c = connection()) {
            Optional<List<Created>> created = CopyEnqueue.enqueue(c, EnqueueBinds.of(jobs, fingerprints, MAPPER));
            assertThat(c.getAutoCommit()).as("autocommit restored").isTrue();
            return created;
        }
    }

    private record StoredRow(String columns, long runAtMs, long createdAtMs) {
    }

    private static Map<String, StoredRow> rows(String topic) throws SQLException {
        Map<String, StoredRow> rows = new HashMap<>();
        try (Connection c = connection();
             PreparedStatement ps = c.prepareStatement("SELECT id, (to_jsonb(j) - 'topic' - 'run_at' - 'created_at')"
                     + "::text, delayq_ms(run_at), delayq_ms(created_at) FROM delayq_jobs j WHERE topic = ?")) {
            ps.setString(1, topic);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), new StoredRow(rs.getString(2), rs.getLong(3), rs.getLong(4)));
                }
            }
        }
        return rows;
    }

    private static Long poll(BlockingQueue<Long> wakes) throws InterruptedException {
        Long wake = wakes.poll(10, TimeUnit.SECONDS);
        assertThat(wake).as("a wake-up").isNotNull();
        return wake;
    }

    private static Connection connection() throws SQLException {
        return DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());
    }

    private static String topic() {
        return "copy-" + UUID.randomUUID();
    }
}
