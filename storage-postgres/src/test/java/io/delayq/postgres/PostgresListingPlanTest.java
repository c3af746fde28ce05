package io.delayq.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.NewJob;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.postgres.testing.TestPostgres;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code list_jobs.sql} reads {@code delayq_jobs} in its four index walks and nowhere else, whatever the table's
 * statistics say. It once joined back to {@code delayq_jobs} at the end to fetch the matching rows; when the
 * statistics were older than a topic's growth (10,000 jobs enqueued since the last ANALYZE, as a bulk load does),
 * PostgreSQL planned that join as a nested loop comparing each of the 1,000 examined rows with every row of the
 * topic: 2.5 s a page instead of 15 ms (seen as a timed-out bulk cancel in {@code JobListingTest} on CI). The plan's
 * shape is asserted, not its time: a join node, or a scan of the table beyond the walks, fails here.
 */
class PostgresListingPlanTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aPageWalksTheTopicsIndexesOnlyEvenWithStatisticsOlderThanTheTopic() throws Exception {
        String topic = "plan-" + UUID.randomUUID();
        try (PostgresJobStore store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresStoreOptions.defaults());
             Connection sql = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                     TestPostgres.password())) {
            long base = store.now() + 86_400_000L;
            store.enqueue(NewJob.at(topic, "first", "{}", base, 3));
            try (Statement analyze = sql.createStatement()) {
                analyze.execute("ANALYZE delayq_jobs"); // statistics from before the topic's growth
            }
            List<NewJob> batch = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                String payload = i % 100 == 7 ? "{\"campaign\":\"wrong\"}" : "{\"campaign\":\"right\",\"n\":" + i + "}";
                batch.add(NewJob.at(topic, "job-" + i, payload, base + (i % 300) * 1_000L, 3));
                if (batch.size() == 500) {
                    store.enqueue(batch);
                    batch.clear();
                }
            }

            JsonNode plan = explain(sql, topic);
            List<String> scans = new ArrayList<>();
            List<String> joins = new ArrayList<>();
            walk(plan, scans, joins);
            assertThat(joins).as("no join: each walk carries its rows out\n%s", plan.toPrettyString()).isEmpty();
            assertThat(scans).as("the walks (two due lanes, leases; the finished one is pruned for a pending listing)"
                    + " read the table, nothing else\n%s", plan.toPrettyString()).hasSize(3);

            JobPage page = store.listJobs(new JobQuery(topic, null, null, null, null, "campaign", "wrong", 100, null));
            assertThat(page.items()).extracting(j -> j.payload()).containsOnly("{\"campaign\":\"wrong\"}");
            assertThat(page.items()).isNotEmpty();
        }
    }

    /** The JSON plan of the first page of {@code topic}'s pending jobs whose {@code campaign} is {@code wrong}. */
    private static JsonNode explain(Connection sql, String topic) throws Exception {
        NamedSql listing = NamedSql.load("list_jobs");
        Map<String, Object> binds = Map.ofEntries(Map.entry("topic", topic), Map.entry("pending", true),
                Map.entry("scheduled", true), Map.entry("leased", true),
                Map.entry("states", sql.createArrayOf("text", new String[] {"scheduled", "leased"})),
                Map.entry("afterMs", -62_135_596_800_000L), Map.entry("afterId", ""),
                Map.entry("toMs", 253_402_300_800_000L), Map.entry("cap", JobQuery.EXAMINE_PER_PAGE),
                Map.entry("limit", 100), Map.entry("payloadText", "{\"campaign\":\"wrong\"}"));
        try (PreparedStatement explain = sql.prepareStatement("EXPLAIN (FORMAT JSON) " + listing.sql())) {
            List<String> names = listing.names();
            for (int i = 0; i < names.size(); i++) {
                Object value = binds.get(names.get(i));
                if (value == null) {
                    explain.setNull(i + 1, java.sql.Types.VARCHAR); // prefix, payloadLiteral: filters left off
                } else {
                    explain.setObject(i + 1, value);
                }
            }
            try (ResultSet rs = explain.executeQuery()) {
                rs.next();
                return JSON.readTree(rs.getString(1)).get(0).get("Plan");
            }
        }
    }

    private static void walk(JsonNode node, List<String> scans, List<String> joins) {
        if ("delayq_jobs".equals(node.path("Relation Name").asText())) {
            scans.add(node.path("Node Type").asText() + " " + node.path("Index Name").asText());
        }
        if (node.has("Join Type")) {
            joins.add(node.path("Node Type").asText() + " " + node.path("Join Type").asText());
        }
        node.path("Plans").forEach(child -> walk(child, scans, joins));
    }
}
