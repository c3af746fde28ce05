package io.delayq.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.archive.TopicScope;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * A tenant's topics and schedule counts by prefix ({@code topics_starting_with.sql}, {@code schedule_count.sql}) are
 * index range scans of V22's "C"-collated indexes, bounded on both sides, among thousands of another team's topics
 * with fresh statistics: the plan's shape is asserted (no sequential scan, both bounds in the index condition), and
 * the answers.
 */
class PostgresPrefixPlanTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int OTHERS = 5_000;

    private final String run = "plan-" + UUID.randomUUID().toString().substring(0, 8);
    private final String mine = run + ".mine.";
    private Connection sql;
    private PostgresJobStore store;

    @BeforeEach
    void fill() throws Exception {
        store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
        sql = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());
        try (PreparedStatement topics = sql.prepareStatement("INSERT INTO delayq_topics (topic)"
                + " SELECT ? || g FROM generate_series(1, ?) g");
             PreparedStatement schedules = sql.prepareStatement("INSERT INTO delayq_schedules (topic, name,"
                     + " definition, cursor_ms, created_at_ms, updated_at_ms) SELECT ? || g, 's', '{}', 0, 0, 0"
                     + " FROM generate_series(1, ?) g")) {
            for (PreparedStatement insert : List.of(topics, schedules)) {
                insert.setString(1, run + ".other.");
                insert.setInt(2, OTHERS);
                insert.executeUpdate();
                insert.setString(1, mine + "t");
                insert.setInt(2, 20);
                insert.executeUpdate();
            }
        }
        try (Statement analyze = sql.createStatement()) {
            analyze.execute("ANALYZE delayq_topics");
            analyze.execute("ANALYZE delayq_schedules");
        }
    }

    @AfterEach
    void clean() throws Exception {
        try (PreparedStatement topics = sql.prepareStatement("DELETE FROM delayq_topics WHERE starts_with(topic, ?)");
             PreparedStatement schedules = sql.prepareStatement(
                     "DELETE FROM delayq_schedules WHERE starts_with(topic, ?)")) {
            for (PreparedStatement delete : List.of(topics, schedules)) {
                delete.setString(1, run);
                delete.executeUpdate();
            }
        } finally {
            sql.close();
            store.close();
        }
    }

    @Test
    void aTenantsTopicsAreARangeOfTheIndexByName() throws Exception {
        assertRangeOf(explain("topics_starting_with"), "delayq_topics", "delayq_topics_by_name");

        List<String> expected = IntStream.rangeClosed(1, 20).mapToObj(i -> mine + "t" + i).sorted().toList();
        assertThat(store.topicsStartingWith(mine, null, 100)).containsExactlyElementsOf(expected);
    }

    @Test
    void aTenantsScheduleCountsAreARangeOfTheIndexByTopic() throws Exception {
        assertRangeOf(explain("schedule_count"), "delayq_schedules", "delayq_schedules_by_topic");

        Map<String, Long> counts = store.schedules().counts(mine, null, 100);
        assertThat(counts).hasSize(20).contains(entry(mine + "t1", 1L), entry(mine + "t20", 1L));
    }

    /**
     * The plan reads {@code table} through one scan of {@code index} (an index scan, or a bitmap index scan and its
     * heap scan) bounded on both sides, and never sequentially.
     */
    private static void assertRangeOf(JsonNode plan, String table, String index) {
        List<String> tableReads = new ArrayList<>();
        List<String> indexReads = new ArrayList<>();
        walk(plan, table, tableReads, indexReads);
        assertThat(tableReads).as("%s\n%s", table, plan.toPrettyString()).isNotEmpty()
                .noneMatch(read -> read.startsWith("Seq Scan"));
        assertThat(indexReads).as("one range of %s\n%s", index, plan.toPrettyString()).hasSize(1);
        assertThat(indexReads.get(0)).contains(index).contains(">=").contains(" < ");
    }

    /** The JSON plan of the statement for the page of {@link #mine}'s topics. */
    private JsonNode explain(String statement) throws Exception {
        NamedSql named = NamedSql.load(statement);
        Map<String, Object> binds = Map.of("prefix", mine, "upper", TopicScope.successor(mine), "after", "",
                "limit", 100);
        try (PreparedStatement explain = sql.prepareStatement("EXPLAIN (FORMAT JSON) " + named.sql())) {
            List<String> names = named.names();
            for (int i = 0; i < names.size(); i++) {
                explain.setObject(i + 1, binds.get(names.get(i)));
            }
            try (ResultSet rs = explain.executeQuery()) {
                rs.next();
                return JSON.readTree(rs.getString(1)).get(0).get("Plan");
            }
        }
    }

    private static void walk(JsonNode node, String table, List<String> tableReads, List<String> indexReads) {
        if (table.equals(node.path("Relation Name").asText())) {
            tableReads.add(node.path("Node Type").asText());
        }
        if (node.path("Index Name").asText().startsWith(table)) {
            indexReads.add(node.path("Node Type").asText() + " " + node.path("Index Name").asText() + " "
                    + node.path("Index Cond").asText());
        }
        node.path("Plans").forEach(child -> walk(child, table, tableReads, indexReads));
    }
}
