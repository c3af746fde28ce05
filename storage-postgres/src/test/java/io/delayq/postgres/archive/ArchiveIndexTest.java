package io.delayq.postgres.archive;

import io.delayq.core.Callback;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.testing.ArchiveFixtures;
import io.delayq.core.testing.StoreFixtures;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every statement of the archive, as it runs, is served by the index storage-postgres/README.md names for it, in the
 * listing's order (no Sort). The planner is told to avoid sequential and bitmap scans and sorts, which it then does
 * only if an index fits: without one, the plan keeps its Seq Scan or Sort, at a prohibitive cost, and the test fails.
 * (On a small table it would rightly prefer a sequential scan; the question here is whether an index can serve.)
 */
class ArchiveIndexTest {
    private static final Pattern BIND = Pattern.compile("(?<!:):(\\w+)");
    private static final Map<String, String> VALUES = Map.ofEntries(
            Map.entry("topic", "'t-plan'"), Map.entry("id", "'x'"), Map.entry("key", "'t-plan/x/1'"),
            Map.entry("fromMs", "1000"), Map.entry("toMs", "90000"), Map.entry("replayed", "false"),
            Map.entry("afterDeadAtMs", "5000"), Map.entry("afterKey", "'t-plan/x/1'"), Map.entry("limit", "51"),
            Map.entry("batch", "1000"), Map.entry("tombstoneRetentionMs", "1000"), Map.entry("nowMs", "NULL"),
            Map.entry("expected", "0"), Map.entry("replay", "'{}'"), Map.entry("state", "'PENDING'"),
            Map.entry("attempts", "1"), Map.entry("nextAttemptAtMs", "70000"), Map.entry("deliveredAtMs", "NULL"),
            Map.entry("lastError", "NULL"), Map.entry("lastStatus", "NULL"));

    private static Connection connection;

    /**
     * Letters of 20 topics, a tenth of them replayed, some purged, and completed jobs, then ANALYZE: the planner
     * judges by statistics, and on empty tables every index looks alike.
     */
    @BeforeAll
    static void connect() throws SQLException {
        try (PostgresJobArchive archive = PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresArchiveOptions.defaults())) {
            long now = System.currentTimeMillis();
            for (int t = 0; t < 20; t++) {
                String topic = StoreFixtures.newTopic();
                List<Job> jobs = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    Job dead = ArchiveFixtures.deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 100L);
                    jobs.add(new Job(topic, dead.id(), "{\"orderId\":" + (t * 100 + i) + "}", dead.runAt(),
                            dead.state(), dead.attempts(), dead.maxAttempts(), dead.backoff(), dead.callback(),
                            dead.timeoutMs(), dead.broadcast(), dead.delivery(), dead.createdAt(), dead.finishedAt(),
                            dead.lastError(), dead.history()));
                    jobs.add(ArchiveFixtures.succeededJob(topic, "s" + i, now - 1_000, now));
                }
                archive.write(ArchiveFixtures.entries(jobs.toArray(Job[]::new)));
                for (int i = 0; i < 100; i += 10) {
                    archive.recordReplay(topic + "/j" + i + "/" + (1_000 + i), 0,
                            new DeadLetter.Replay(1, now, "j" + i + ":r1", null));
                }
                archive.purgeDeadLetters(new JobRef(topic, "j99"));
            }
            // The planned topic has letters too, so that its statistics tell its index from the job index (with no
            // rows both estimate one and tie, and which one wins then depends on what other tests left behind).
            List<Job> planned = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                planned.add(ArchiveFixtures.deadJob("t-plan", "p" + i, 1_000 + i, 10_000 + i * 100L));
            }
            archive.write(ArchiveFixtures.entries(planned.toArray(Job[]::new)));
            // Letters with dead notices (V11), most of them settled: the due notices' index holds the pending ones.
            String noticed = StoreFixtures.newTopic();
            List<Job> notices = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                notices.add(ArchiveFixtures.deadJob(noticed, "n" + i, 1_000 + i, 10_000 + i * 100L)
                        .withOnDead(Callback.of("https://ops.example.test/dead")));
            }
            archive.write(ArchiveFixtures.entries(notices.toArray(Job[]::new)));
            for (int i = 0; i < 90; i++) {
                archive.recordNotice(noticed + "/n" + i + "/" + (1_000 + i), 0, DeadNotice.pending(0).delivered(now));
            }
        }
        connection = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password());
        try (Statement s = connection.createStatement()) {
            s.execute("ANALYZE delayq_dead_letters");
            s.execute("ANALYZE delayq_completed_jobs");
            s.execute("SET enable_seqscan = off");
            s.execute("SET enable_bitmapscan = off");
            s.execute("SET enable_sort = off");
        }
    }

    @AfterAll
    static void disconnect() throws SQLException {
        connection.close();
    }

    @Test
    void everyFilterOfTheListingHasAnIndexInTheListingsOrder() throws Exception {
        assertListingUses("delayq_dead_letters_listing", new DeadLetterQuery(null, null, null, null, 50, null));
        assertListingUses("delayq_dead_letters_listing", new DeadLetterQuery(null, 1_000L, 90_000L, null, 50, null));
        assertListingUses("delayq_dead_letters_topic", DeadLetterQuery.topic("t-plan"));
        assertListingUses("delayq_dead_letters_topic", new DeadLetterQuery("t-plan", 1_000L, 90_000L, null, 50, null));
        assertListingUses("delayq_dead_letters_replayed", new DeadLetterQuery(null, null, null, false, 50, null));
        assertListingUses("delayq_dead_letters_replayed", new DeadLetterQuery(null, 1_000L, null, true, 50, null));
        // Topic and replayed: the topic's index serves too (filtering on replayed), and on a small table the planner
        // rightly takes it; with it out of the way, the index made for the pair serves, replayed in its range.
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
            s.execute("DROP INDEX delayq_dead_letters_topic"); // rolled back below: DDL is transactional
            assertListingUses("delayq_dead_letters_topic_replayed", DeadLetterQuery.topic("t-plan").withReplayed(true));
            assertListingUses("delayq_dead_letters_topic_replayed",
                    new DeadLetterQuery("t-plan", 1_000L, 90_000L, false, 50, null));
            assertThat(indexCondition(listingPlan(DeadLetterQuery.topic("t-plan").withReplayed(false))))
                    .contains("replayed = false");
        } finally {
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

    @Test
    void aCursorIsARangeOfTheIndexNotAFilterOverIt() throws Exception {
        String cursor = DeadLetterCursor.encode(5_000, "t-plan/x/1");
        String plan = listingPlan(DeadLetterQuery.topic("t-plan").withCursor(cursor));
        assertThat(plan).contains("Index Scan using delayq_dead_letters_topic").doesNotContain("Sort");
        assertThat(indexCondition(plan)).as(plan).contains("ROW(dead_at, key) <");
        assertThat(indexCondition(listingPlan(DeadLetterQuery.all().withCursor(cursor)))).contains("ROW(dead_at, key)");
    }

    @Test
    void lookupsPurgesAndTheReaperUseTheirIndexes() throws Exception {
        assertThat(plan(statement("dead_letter_of_job"))).contains("delayq_dead_letters_job").doesNotContain("Sort");
        assertThat(plan(statement("dead_letter"))).contains("delayq_dead_letters_pkey");
        assertThat(plan(statement("record_replay"))).contains("delayq_dead_letters_pkey");
        assertThat(plan(statement("find"))).contains("delayq_dead_letters_job", "delayq_completed_jobs_job");
        DeadLetterFilter byJob = DeadLetterFilter.job(new JobRef("t-plan", "x"));
        assertThat(plan(statement("purge").replace("<filter>", byJob.conditions())))
                .contains("delayq_dead_letters_job");
        DeadLetterFilter byTopic = DeadLetterFilter.purge(DeadLetterQuery.topic("t-plan"));
        assertThat(plan(statement("purge").replace("<filter>", byTopic.conditions())))
                .contains("delayq_dead_letters_topic");
        assertThat(plan(statement("reap_completed"))).contains("delayq_completed_jobs_expire").doesNotContain("Sort");
        assertThat(plan(statement("reap_tombstones"))).contains("delayq_dead_letters_tombstones")
                .doesNotContain("Sort");
    }

    /**
     * The notice sender's (V11): the due notices are a range of the partial index on pending notices, in its order
     * (no Sort), the time an Index Cond; recording a notice is one row by its key.
     */
    @Test
    void dueNoticesAreARangeOfThePendingNoticesIndex() throws Exception {
        String plan = plan(statement("due_notices"), Map.of("nowMs", 20_000L));
        assertThat(plan).contains("Index Scan using delayq_dead_letters_notices_due ").doesNotContain("Sort");
        assertThat(indexCondition(plan)).as(plan).contains("notice_next_attempt_at <=");
        assertThat(plan(statement("record_notice"))).contains("delayq_dead_letters_pkey");
    }

    /** The dashboard's payload filter (issue 14), as it will ask: containment, through the GIN index. */
    @Test
    void aPayloadFieldFilterUsesTheGinIndex() throws Exception {
        try (Statement s = connection.createStatement()) {
            s.execute("SET enable_bitmapscan = on"); // a GIN index is read through a bitmap
            try {
                assertThat(plan("SELECT key FROM delayq_dead_letters WHERE purged_at IS NULL"
                        + " AND payload_doc @> '{\"orderId\": 42}'")).contains("delayq_dead_letters_payload");
            } finally {
                s.execute("SET enable_bitmapscan = off");
            }
        }
    }

    /** The dashboard's filters (V5): host, status and group lead indexes in the listing's order, as topic does. */
    @Test
    void theDashboardsFiltersHaveTheirIndexes() throws Exception {
        assertListingUses("delayq_dead_letters_host", DeadLetterQuery.all().withHost("hooks.example.com"));
        assertListingUses("delayq_dead_letters_status", DeadLetterQuery.all().withHttpStatus(503));
        assertListingUses("delayq_dead_letters_signature", DeadLetterQuery.all().withGroup("0123456789ab"));
        try (Statement s = connection.createStatement()) {
            // a prefix matches ids in id order, not the listing's: its few letters are then sorted
            s.execute("SET enable_sort = on");
            try {
                String prefix = listingPlan(DeadLetterQuery.all().withIdPrefix("j42"));
                assertThat(prefix).contains("delayq_dead_letters_id ").doesNotContain("Seq Scan");
                assertThat(indexCondition(prefix)).as("an id prefix is a range of the id index: %s", prefix)
                        .contains("id >= 'j42'", "id < 'j43'");
            } finally {
                s.execute("SET enable_sort = off");
            }
        }
        assertThat(countPlan(DeadLetterQuery.all().withHost("hooks.example.com"))).contains("delayq_dead_letters_host")
                .doesNotContain("Seq Scan");
        try (Statement s = connection.createStatement()) {
            // a GIN index is read through a bitmap, and what it matched is then sorted into the listing's order
            s.execute("SET enable_bitmapscan = on");
            s.execute("SET enable_sort = on");
            try {
                assertThat(listingPlan(DeadLetterQuery.all().withPayload("orderId", "42")))
                        .contains("delayq_dead_letters_payload").doesNotContain("Seq Scan");
            } finally {
                s.execute("SET enable_bitmapscan = off");
                s.execute("SET enable_sort = off");
            }
        }
    }

    /**
     * Groups: over every letter, the GROUP BY and each example read the signature index (an example is the top of its
     * group's range); narrowed to a topic, the topic's letters are read through a topic index.
     */
    @Test
    void failureGroupsReadIndexesOnly() throws Exception {
        assertThat(groupsPlan(DeadLetterQuery.all())).contains("delayq_dead_letters_signature")
                .doesNotContain("Seq Scan");
        assertThat(groupsPlan(DeadLetterQuery.topic("t-plan"))).containsPattern("delayq_dead_letters_(topic|job)")
                .doesNotContain("Seq Scan");
        assertThat(groupsPlan(DeadLetterQuery.all().withHttpStatus(503))).contains("delayq_dead_letters_status")
                .doesNotContain("Seq Scan");
    }

    private static String countPlan(DeadLetterQuery query) throws Exception {
        return plan(statement("count_dead_letters").replace("<filter>", DeadLetterFilter.purge(query).conditions()),
                DeadLetterFilter.purge(query).binds());
    }

    private static String groupsPlan(DeadLetterQuery query) throws Exception {
        DeadLetterFilter filter = DeadLetterFilter.purge(query);
        Map<String, Object> binds = new java.util.HashMap<>(filter.binds());
        binds.put("hourAgoMs", 1_000L);
        binds.put("nowMs", 5_000L);
        return plan(statement("failure_groups").replace("<filter>", filter.conditions()), binds);
    }


    private static void assertListingUses(String index, DeadLetterQuery query) throws Exception {
        String plan = listingPlan(query);
        assertThat(plan).as("%s%n%s", query, plan).contains("Index Scan using " + index + " ")
                .doesNotContain("Sort");
    }

    private static String listingPlan(DeadLetterQuery query) throws Exception {
        DeadLetterFilter filter = DeadLetterFilter.listing(query);
        return plan(statement("dead_letters").replace("<filter>", filter.conditions()), filter.binds());
    }

    private static String indexCondition(String plan) {
        return plan.lines().filter(l -> l.contains("Index Cond")).collect(Collectors.joining("\n"));
    }

    /** The statement's file without its comments, binds replaced by literals. */
    private static String statement(String name) throws IOException {
        String resource = "io/delayq/postgres/archive/sql/" + name + ".sql";
        try (InputStream in = ArchiveIndexTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.startsWith("--")).collect(Collectors.joining("\n"));
            return sql;
        }
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static String plan(String sql) throws SQLException {
        return plan(sql, Map.of());
    }

    /** The plan with each bind replaced by its value in {@code binds} (a filter's own), else in {@link #VALUES}. */
    private static String plan(String sql, Map<String, Object> binds) throws SQLException {
        Matcher m = BIND.matcher(sql);
        StringBuilder literal = new StringBuilder();
        while (m.find()) {
            Object bound = binds.get(m.group(1));
            String value = bound instanceof String text ? quote(text)
                    : bound instanceof String[] texts ? java.util.Arrays.stream(texts).map(ArchiveIndexTest::quote)
                            .collect(Collectors.joining(", ", "ARRAY[", "]::text[]"))
                    : bound != null ? String.valueOf(bound) : VALUES.get(m.group(1));
            assertThat(value).as("a value for :%s", m.group(1)).isNotNull();
            m.appendReplacement(literal, Matcher.quoteReplacement(value));
        }
        m.appendTail(literal);
        StringBuilder plan = new StringBuilder();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + literal)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
