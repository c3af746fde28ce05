package io.delayq.postgres.archive;

import io.delayq.core.Job;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.TopicScope;
import io.delayq.core.tenant.TopicPattern;
import io.delayq.core.testing.ArchiveFixtures;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tenant's scope on a table of 20,000 dead letters over 200 topics, with the planner's own settings (unlike
 * {@link ArchiveIndexTest}, which forbids what it checks an index can replace): a scoped listing, count, groups and
 * purge read the scope's letters through the topic indexes (a prefix is a range of them, the exact names points), and
 * a topic filter outside the scope reads nothing at all. The plans are logged (EXPLAIN ANALYZE), as
 * storage-postgres/README.md quotes them.
 */
class ArchiveScopePlanTest {
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveScopePlanTest.class);
    private static final Pattern BIND = Pattern.compile("(?<!:):(\\w+)");
    private static final int TOPICS = 200;
    private static final int LETTERS_PER_TOPIC = 100;

    private static Connection connection;
    private static String base;
    /** acme: 10 topics under {@code <base>.acme.}, and {@code <base>.ledger}: 1,100 of the 20,000 letters. */
    private static TopicScope acme;

    @BeforeAll
    static void fill() throws SQLException {
        base = "plan-" + UUID.randomUUID().toString().substring(0, 8);
        acme = TopicScope.of("acme", List.of(TopicPattern.of(base + ".acme.*"), TopicPattern.of(base + ".ledger")));
        try (PostgresJobArchive archive = PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresArchiveOptions.defaults())) {
            for (int t = 0; t < TOPICS; t++) {
                String topic = t < 10 ? base + ".acme.t" + t : t == 10 ? base + ".ledger"
                        : t < 20 ? base + ".acmex.t" + t : base + ".team" + (t % 37) + ".t" + t;
                List<Job> jobs = new ArrayList<>();
                for (int i = 0; i < LETTERS_PER_TOPIC; i++) {
                    jobs.add(ArchiveFixtures.deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 100L + t));
                }
                archive.write(ArchiveFixtures.entries(jobs.toArray(Job[]::new)));
            }
        }
        connection = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password());
        try (Statement s = connection.createStatement()) {
            s.execute("VACUUM ANALYZE delayq_dead_letters");
        }
    }

    @AfterAll
    static void disconnect() throws SQLException {
        connection.close();
    }

    @Test
    void aScopedListingReadsTheScopesLettersThroughAnIndex() throws Exception {
        String plan = explain("dead_letters", DeadLetterFilter.listing(DeadLetterQuery.all().withScope(acme)));
        assertThat(plan).as(plan).containsPattern("Index (Only )?Scan using delayq_dead_letters_(topic|listing|job)")
                .doesNotContain("Seq Scan");
        assertThat(rows(plan)).as("it returns the page: %s", plan).isEqualTo(50);
    }

    @Test
    void aScopedCountGroupsAndPurgeReadThroughTheTopicIndexes() throws Exception {
        DeadLetterFilter scoped = DeadLetterFilter.purge(DeadLetterQuery.all().withScope(acme));
        String count = explain("count_dead_letters", scoped);
        assertThat(count).as(count).containsPattern("delayq_dead_letters_(topic|job)").doesNotContain("Seq Scan");
        Map<String, Object> groupBinds = new HashMap<>(scoped.binds());
        groupBinds.put("hourAgoMs", 1_000L);
        groupBinds.put("nowMs", 5_000L);
        String groups = explain("failure_groups", new DeadLetterFilter(scoped.conditions(), groupBinds));
        assertThat(groups).as(groups).containsPattern("delayq_dead_letters_(topic|job)").doesNotContain("Seq Scan");
        assertThat(indexConditions(groups)).as("each part of the scope a range of a topic index: %s", groups)
                .contains("topic = ANY", "topic > '" + base + ".acme.'", "topic < '" + base + ".acme/'");
        String purge = plan("purge", scoped, false); // planned, not run: the letters stay for the other tests
        assertThat(purge).as(purge).containsPattern("delayq_dead_letters_(topic|job|listing)")
                .doesNotContain("Seq Scan");
    }

    /** The common scope, one {@code name.*}: one range, an Index Cond of the topic index, and no OR to split. */
    @Test
    void aScopeOfOnePrefixIsOneRangeOfTheTopicIndex() throws Exception {
        TopicScope billing = TopicScope.of("billing", List.of(TopicPattern.of(base + ".acme.*")));
        String count = explain("count_dead_letters", DeadLetterFilter.purge(DeadLetterQuery.all().withScope(billing)));
        assertThat(indexConditions(count)).as(count)
                .contains("topic > '" + base + ".acme.'", "topic < '" + base + ".acme/'");
        assertThat(count).doesNotContain("Seq Scan").doesNotContain("Rows Removed by Filter");
        String listing = explain("dead_letters", DeadLetterFilter.listing(DeadLetterQuery.all().withScope(billing)));
        assertThat(listing).as(listing).containsPattern("Index (Only )?Scan using delayq_dead_letters_(topic|listing)")
                .doesNotContain("Seq Scan");
    }

    @Test
    void aTopicOutsideTheScopeReadsNothing() throws Exception {
        String plan = explain("dead_letters",
                DeadLetterFilter.listing(DeadLetterQuery.topic(base + ".acmex.t11").withScope(acme)));
        assertThat(plan).as(plan).contains("One-Time Filter: false").doesNotContain("Scan");
    }

    private static String indexConditions(String plan) {
        return plan.lines().filter(l -> l.contains("Index Cond")).collect(Collectors.joining("\n"));
    }

    private static long rows(String plan) {
        Matcher m = Pattern.compile("^Limit .*actual time=\\S+ rows=(\\d+)").matcher(plan);
        assertThat(m.find()).as(plan).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String explain(String statement, DeadLetterFilter filter) throws Exception {
        return plan(statement, filter, true);
    }

    /** EXPLAIN (ANALYZE when {@code analyze}) of the statement with the filter's conditions and binds as literals. */
    private static String plan(String statement, DeadLetterFilter filter, boolean analyze) throws Exception {
        String sql = statement(statement).replace("<filter>", filter.conditions());
        Map<String, Object> binds = new HashMap<>(filter.binds());
        binds.putIfAbsent("limit", 50);
        binds.putIfAbsent("batch", 1_000);
        binds.putIfAbsent("tombstoneRetentionMs", 1_000);
        Matcher m = BIND.matcher(sql);
        StringBuilder literal = new StringBuilder();
        while (m.find()) {
            Object value = binds.get(m.group(1));
            assertThat(value).as("a value for :%s", m.group(1)).isNotNull();
            String text = value instanceof String s ? quote(s)
                    : value instanceof String[] texts ? Arrays.stream(texts).map(ArchiveScopePlanTest::quote)
                            .collect(Collectors.joining(", ", "ARRAY[", "]::text[]"))
                    : String.valueOf(value);
            m.appendReplacement(literal, Matcher.quoteReplacement(text));
        }
        m.appendTail(literal);
        StringBuilder plan = new StringBuilder();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("EXPLAIN " + (analyze ? "(ANALYZE, BUFFERS, COSTS OFF) " : "(COSTS OFF) ")
                     + literal)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        LOG.info("{} over {} letters:\n{}", statement, TOPICS * LETTERS_PER_TOPIC, plan);
        return plan.toString();
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static String statement(String name) throws IOException {
        String resource = "io/delayq/postgres/archive/sql/" + name + ".sql";
        try (InputStream in = ArchiveScopePlanTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("--"))
                    .collect(Collectors.joining("\n"));
        }
    }
}
