package io.delayq.postgres.archive;

import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.OperatorLog;
import io.delayq.core.testing.Await;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the contract ({@link PostgresOperatorLogContractTest}) cannot see: the background reaper, the rows' expiry,
 * and that every statement is served by its index (as {@link ArchiveIndexTest} checks the archive's).
 */
class PostgresOperatorLogTest {
    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final Pattern BIND = Pattern.compile("(?<!:):(\\w+)");
    private static final Map<String, String> VALUES = Map.ofEntries(
            Map.entry("id", "'x'"), Map.entry("limit", "50"), Map.entry("beforeAtMs", "5000"),
            Map.entry("beforeId", "'x'"), Map.entry("nowMs", "NULL"), Map.entry("batch", "1000"),
            Map.entry("done", "1"), Map.entry("failed", "0"), Map.entry("lastError", "NULL"),
            Map.entry("updatedAt", "5000"), Map.entry("state", "'RUNNING'"), Map.entry("retentionMs", "1000"),
            Map.entry("tenant", "'acme'"));

    @Test
    void theArchivesReaperDropsExpiredOperationsAndAuditEntries() {
        long now = System.currentTimeMillis();
        try (PostgresJobArchive archive = PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresArchiveOptions.defaults().withReaperBatch(2)
                        .withReaperInterval(Duration.ofMillis(50)))) {
            OperatorLog log = archive.operatorLog();
            String[] old = new String[5];
            for (int i = 0; i < old.length; i++) {
                old[i] = UUID.randomUUID().toString();
                log.save(operation(old[i], now - 31 * DAY));
                log.audit(new AuditEntry(old[i], now - 31 * DAY, "alice", "job.cancel", "t/" + i, 1, null));
            }
            String fresh = UUID.randomUUID().toString();
            log.save(operation(fresh, now - 29 * DAY));
            log.audit(new AuditEntry(fresh, now - 29 * DAY, "alice", "job.cancel", "t/fresh", 1, null));

            Await.until("operations and audit entries older than 30 days dropped", () -> {
                for (String id : old) {
                    if (log.operation(id).isPresent() || count("delayq_audit", id) > 0) {
                        return false;
                    }
                }
                return true;
            });
            assertThat(log.operation(fresh)).isPresent();
            assertThat(count("delayq_audit", fresh)).isEqualTo(1);
        }
    }

    @Test
    void rowsAreKeptAsLongAsTombstonesWhenThatIsLonger() throws SQLException {
        try (PostgresJobArchive archive = PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresArchiveOptions.defaults().withTombstoneRetention(Duration.ofDays(60)))) {
            String id = UUID.randomUUID().toString();
            archive.operatorLog().save(operation(id, 2_000));
            archive.operatorLog().audit(new AuditEntry(id, 7_000, "alice", "job.cancel", "t/1", 1, null));

            assertThat(keptMs("delayq_operations", "updated_at", id)).isEqualTo(60 * DAY);
            archive.operatorLog().report(operation(id, 2_000).progressed(1, 0, null, 9_000));
            assertThat(keptMs("delayq_operations", "updated_at", id)).as("from the last report").isEqualTo(60 * DAY);
            assertThat(keptMs("delayq_audit", "at", id)).isEqualTo(60 * DAY);
        }
    }

    /**
     * The planner is told to avoid sequential and bitmap scans and sorts; it then still uses one only if no index
     * fits, and the test fails.
     */
    @Test
    void everyStatementIsServedByItsIndex() throws Exception {
        try (PostgresJobArchive archive = PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresArchiveOptions.defaults())) {
            long now = System.currentTimeMillis();
            for (int i = 0; i < 200; i++) {
                String id = UUID.randomUUID().toString();
                String tenant = i % 4 == 0 ? "acme" : i % 4 == 1 ? "shop" : null; // V16's partial indexes hold half
                BulkOperation op = operation(id, now - i * 1_000L);
                archive.operatorLog().save(new BulkOperation(op.id(), op.kind(), op.filter(), op.state(), op.total(),
                        op.done(), op.failed(), op.startedBy(), op.createdAt(), op.updatedAt(), op.cancelRequested(),
                        op.lastError(), tenant));
                archive.operatorLog().audit(new AuditEntry(id, now - i * 1_000L, "alice", "job.cancel", "t/" + i, 1,
                        null, tenant));
            }
        }
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("ANALYZE delayq_operations");
            s.execute("ANALYZE delayq_audit");
            s.execute("SET enable_seqscan = off");
            s.execute("SET enable_bitmapscan = off");
            s.execute("SET enable_sort = off");

            assertThat(plan(s, "operations")).contains("delayq_operations_newest").doesNotContain("Sort");
            assertThat(plan(s, "audit_log")).contains("delayq_audit_newest").doesNotContain("Sort");
            String before = plan(s, "audit_log_before");
            assertThat(before).contains("Index Scan using delayq_audit_newest").doesNotContain("Sort");
            assertThat(before.lines().filter(l -> l.contains("Index Cond")).collect(Collectors.joining()))
                    .as("a range of the index, not a filter over it").contains("ROW(at, id) <");
            // a tenant's (V16): ranges of the indexes led by the tenant, in the same order
            assertThat(plan(s, "operations_of_tenant")).contains("Index Scan using delayq_operations_tenant")
                    .doesNotContain("Sort");
            assertThat(plan(s, "audit_log_of_tenant")).contains("Index Scan using delayq_audit_tenant")
                    .doesNotContain("Sort");
            // a page from within the data: below a point before every row the newest-first index ends at once too
            String tenantBefore = plan(s, "audit_log_of_tenant_before",
                    Map.of("beforeAtMs", String.valueOf(System.currentTimeMillis() - 100_000)));
            assertThat(tenantBefore).contains("Index Scan using delayq_audit_tenant").doesNotContain("Sort");
            assertThat(tenantBefore.lines().filter(l -> l.contains("Index Cond")).collect(Collectors.joining()))
                    .as("the tenant and the page are a range of the index").contains("tenant =", "ROW(at, id) <");
            assertThat(plan(s, "audit_at")).contains("delayq_audit_pkey");
            assertThat(plan(s, "operation")).contains("delayq_operations_pkey");
            assertThat(plan(s, "report_progress")).contains("delayq_operations_pkey");
            assertThat(plan(s, "request_cancel")).contains("delayq_operations_pkey").doesNotContain("Seq Scan");
            assertThat(plan(s, "reap_operations")).contains("delayq_operations_expire").doesNotContain("Sort");
            assertThat(plan(s, "reap_audit")).contains("delayq_audit_expire").doesNotContain("Sort");
        }
    }

    private static BulkOperation operation(String id, long at) {
        return new BulkOperation(id, BulkOperation.Kind.PURGE, "topic=t", BulkOperation.State.RUNNING, 3, 0, 0,
                "alice", at, at, false, null);
    }

    private static long keptMs(String table, String from, String id) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT delayq_ms(expire_at) - delayq_ms(" + from + ") FROM " + table
                     + " WHERE id = '" + id + "'")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

    private static long count(String table, String id) {
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table + " WHERE id = '" + id + "'")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password());
    }

    private static String plan(Statement s, String name) throws IOException, SQLException {
        return plan(s, name, Map.of());
    }

    /** EXPLAIN of the statement's file without its comments, binds replaced by literals ({@code values} first). */
    private static String plan(Statement s, String name, Map<String, String> values) throws IOException, SQLException {
        String resource = "io/delayq/postgres/archive/sql/" + name + ".sql";
        String sql;
        try (InputStream in = PostgresOperatorLogTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.startsWith("--")).collect(Collectors.joining("\n"));
        }
        Matcher m = BIND.matcher(sql);
        StringBuilder literal = new StringBuilder();
        while (m.find()) {
            String value = values.getOrDefault(m.group(1), VALUES.get(m.group(1)));
            assertThat(value).as("a value for :%s", m.group(1)).isNotNull();
            m.appendReplacement(literal, Matcher.quoteReplacement(value));
        }
        m.appendTail(literal);
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = s.executeQuery("EXPLAIN " + literal)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
