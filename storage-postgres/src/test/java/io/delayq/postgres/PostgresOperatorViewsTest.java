package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.NewJob;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
import io.delayq.postgres.testing.TestPostgres;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator views as PostgreSQL runs them: the forecast reads only the window's range of the due index, and the
 * reaper drops minutes of the topic history past the retention (the contract proves what they answer).
 */
class PostgresOperatorViewsTest {
    private final String topic = "views-" + UUID.randomUUID();
    /** Its own reaper waits an hour: the test runs the passes itself. */
    private final PostgresJobStore store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
            TestPostgres.password(), PostgresStoreOptions.defaults().withReaperInterval(Duration.ofHours(1)));

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void theForecastReadsOnlyTheWindowOfEachLanesDueRange() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            NewJob job = NewJob.delayed(topic, "j" + i, "{}", 60_000 + i * 1_000L, 3);
            jobs.add(i % 2 == 0 ? job : job.withDelivery(Delivery.PUSH));
        }
        store.enqueue(jobs);
        long from = store.now() + 100_000;
        Jdbi jdbi = Jdbi.create(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());

        String plan = jdbi.withHandle(h -> String.join("\n", h.createQuery("EXPLAIN (ANALYZE, COSTS OFF) "
                        + sql("due_forecast"))
                .bind("topic", topic).bind("fromMs", from).bind("toMs", from + 10_000).bind("bucketMs", 1_000L)
                .mapTo(String.class).list()));

        assertThat(plan).as("two range scans of the due index, bounded by the window")
                .contains("delayq_jobs_due")
                .contains("run_at >=")
                .doesNotContain("Seq Scan")
                .doesNotContain("Rows Removed by Filter");
        assertThat(store.dueForecast(topic, from, 1_000, 10)).containsOnly(1L);
    }

    @Test
    void theReaperDropsMinutesPastTheRetentionAndKeepsTheRest() {
        long now = store.now();
        long minute = now - now % TopicMinute.MINUTE_MS;
        long expired = minute - TopicMinute.RETENTION_MS - 2 * TopicMinute.MINUTE_MS;
        long kept = minute - TopicMinute.RETENTION_MS + 10 * TopicMinute.MINUTE_MS;
        store.addHistory(List.of(increment(expired), increment(kept)));
        assertThat(store.history(topic, expired, expired + TopicMinute.MINUTE_MS)).hasSize(1);

        store.reap();

        assertThat(store.history(topic, expired, expired + TopicMinute.MINUTE_MS)).isEmpty();
        assertThat(store.history(topic, kept, kept + TopicMinute.MINUTE_MS)).containsExactly(increment(kept));
    }

    private TopicMinute increment(long minute) {
        long[] lateness = new long[LatenessBuckets.COUNT];
        lateness[2] = 1;
        return new TopicMinute(topic, minute, 1, 1, 0, 0, lateness);
    }

    private static String sql(String name) {
        String path = "/io/delayq/postgres/sql/" + name + ".sql";
        try (InputStream in = PostgresOperatorViewsTest.class.getResourceAsStream(path)) {
            assertThat(in).as(path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
