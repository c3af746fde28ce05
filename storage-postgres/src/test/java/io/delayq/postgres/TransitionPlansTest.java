package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.Lease;
import io.delayq.core.LeaseToken;
import io.delayq.core.NewJob;
import io.delayq.postgres.testing.TestPostgres;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the hot statements, as PostgreSQL chooses them for a topic with many jobs in flight: what each row of a
 * batch costs must not grow with the batch or with the leases held. Each shape checked here was once quadratic or
 * ran a function row by row, and the drain was 30 to 50 times slower for it. Statements run under EXPLAIN ANALYZE in
 * a transaction that is rolled back.
 */
class TransitionPlansTest {
    private static final int JOBS = 2_000;
    private static PostgresJobStore store;
    private static Jdbi jdbi;

    @BeforeAll
    static void connect() {
        store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
        jdbi = Jdbi.create(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void theHistoryFunctionIsInlinedIntoTheStatementsThatCallIt() {
        String plan = explain(h -> h.createQuery("EXPLAIN (VERBOSE) SELECT delayq_history(history, "
                + "jsonb_build_object('number', attempts), 3) FROM delayq_jobs LIMIT 1"));

        assertThat(plan).as("a function left in the plan runs through the SQL-function executor for every row")
                .doesNotContain("delayq_history(")
                .contains("jsonb_strip_nulls");
    }

    @Test
    void anAckBatchDoesNotLookUpEachLeaseThroughEveryLeaseOfTheTopic() {
        String topic = "plans-" + UUID.randomUUID();
        List<Lease> leases = leaseAll(topic);
        List<Lease> batch = leases.subList(0, 500);

        String plan = explain(h -> h.createQuery("EXPLAIN (ANALYZE, COSTS OFF) " + sql("ack"))
                .bindArray("topics", String.class, batch.stream().map(l -> l.job().topic()).toList())
                .bindArray("ids", String.class, batch.stream().map(l -> l.job().id()).toList())
                .bind("tokens", BatchTransitions.tokens(batch.stream().map(Lease::token).toList()))
                .bind("historySize", 100));

        assertThat(plan).as("the ack's UPDATE probes the partial lease index, filtering all %d leases per row",
                leases.size()).doesNotContain("delayq_jobs_lease_deadline");
    }

    @Test
    void aReserveFindsTheNextDueTimeWithoutComparingEveryRowToEveryJobItLeased() {
        String topic = "plans-" + UUID.randomUUID();
        enqueueDueNow(topic);

        String plan = explain(h -> h.createQuery("EXPLAIN (ANALYZE, COSTS OFF) " + sql("reserve"))
                .bind("topic", topic).bind("push", false).bind("max", 1_000).bind("defaultLeaseMs", 60_000L)
                .bind("expiresAfterMs", 0L)
                .bind("tokens", LeaseToken.randomBits(1_000)));

        assertThat(plan).as("the leased jobs are skipped by a hash lookup").contains("hashed SubPlan");
        assertThat(plan).as("not by a nested loop over them per row").doesNotContain("Rows Removed by Join Filter");
        assertThat(plan).as("each locked row is updated where the lock found it, not looked up again by key")
                .contains("Tid Scan on delayq_jobs").doesNotContain("Index Scan using delayq_jobs_pkey");
    }

    @Test
    void aReserveAmongManyJobsFetchesOnlyTheRowsItLocked() {
        String topic = "plans-" + UUID.randomUUID();
        enqueueDueNow(topic);
        // A table much larger than the batch: here a join of the locked rows with the table was planned as a hash
        // join over a sequential scan of all of it, on the key and on ctid alike
        for (int i = 0; i < 10; i++) {
            enqueueDueNow("plans-filler-" + UUID.randomUUID());
        }
        jdbi.useHandle(h -> h.execute("ANALYZE delayq_jobs"));

        String plan = explain(h -> h.createQuery("EXPLAIN (ANALYZE, COSTS OFF) " + sql("reserve"))
                .bind("topic", topic).bind("push", false).bind("max", 1_000).bind("defaultLeaseMs", 60_000L)
                .bind("expiresAfterMs", 0L)
                .bind("tokens", LeaseToken.randomBits(1_000)));

        assertThat(plan).as("the UPDATE reads the %d locked rows by TID, not the whole table", 1_000)
                .contains("Tid Scan on delayq_jobs").doesNotContain("Seq Scan on delayq_jobs");
        // The expired jobs (issue 29) are a separate, small UPDATE by an array of their TIDs: set it aside.
        String leasing = plan.replaceAll("(?s)\n  CTE expired\n.*?(?=\n  (CTE|->))", "");
        assertThat(leasing).as("each row fetched by its own TID, beside its token, not compared with every locked TID")
                .containsPattern("TID Cond: \\(\\w+\\.tid = ctid\\)").doesNotContain("ctid = ANY");
    }

    @Test
    void anAckBatchReadsTheTopicsSettingsOncePerTopic() {
        String topic = "plans-" + UUID.randomUUID();
        List<Lease> batch = leaseAll(topic).subList(0, 500);

        String plan = explain(h -> h.createQuery("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + sql("ack"))
                .bindArray("topics", String.class, batch.stream().map(l -> l.job().topic()).toList())
                .bindArray("ids", String.class, batch.stream().map(l -> l.job().id()).toList())
                .bind("tokens", BatchTransitions.tokens(batch.stream().map(Lease::token).toList()))
                .bind("historySize", 100));

        assertThat(plan).as("archiveSucceeded is looked up for the batch's one topic, not for each of its 500 jobs")
                .containsPattern("Scan (using delayq_topics_pkey )?on delayq_topics t \\(actual rows=\\d+ loops=1\\)");
    }

    @Test
    void aTimeIsConvertedToMillisecondsInlineNotByTheSqlFunctionExecutor() {
        String plan = explain(h -> h.createQuery("EXPLAIN (VERBOSE) SELECT delayq_ms(run_at) FROM delayq_jobs LIMIT 1"));

        assertThat(plan).as("V10's delayq_ms is inlined").doesNotContain("delayq_ms(").contains("EXTRACT(epoch");
    }

    @Test
    void aReaperPassWithNothingOldEnoughReadsNoFinishedRow() {
        String topic = "plans-" + UUID.randomUUID();
        List<Lease> leases = leaseAll(topic);
        store.ack(leases.stream().map(io.delayq.core.LeaseRef::of).toList());

        String plan = explain(h -> h.createQuery("EXPLAIN (ANALYZE, COSTS OFF) " + sql("trim"))
                .bind("retentionMs", 3_600_000L).bind("batch", 1_000));

        assertThat(plan).as("the cut-off bounds the index scan: %d finished jobs, none an hour old", JOBS)
                .contains("Index Cond: (finished_at <")
                .doesNotContain("Rows Removed by Filter");
    }

    private static List<Lease> leaseAll(String topic) {
        enqueueDueNow(topic);
        List<Lease> leases = new ArrayList<>();
        while (leases.size() < JOBS) {
            List<Lease> got = store.reserve(topic, Delivery.PULL, 1_000, 60_000).leases();
            assertThat(got).as("jobs due").isNotEmpty();
            leases.addAll(got);
        }
        return leases;
    }

    private static void enqueueDueNow(String topic) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            jobs.add(NewJob.delayed(topic, "j" + i, "{\"n\":" + i + "}", 0, 3));
        }
        store.enqueue(jobs);
    }

    private static String explain(Function<Handle, org.jdbi.v3.core.statement.Query> query) {
        return jdbi.withHandle(h -> {
            h.begin();
            try {
                return String.join("\n", query.apply(h).mapTo(String.class).list());
            } finally {
                h.rollback();
            }
        });
    }

    /** A transition's statement as the store runs it. */
    private static String sql(String transition) {
        String path = "/io/delayq/postgres/sql/" + transition + ".sql";
        try (InputStream in = TransitionPlansTest.class.getResourceAsStream(path)) {
            assertThat(in).as(path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
