package io.delayq.postgres;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** JDBI-style named binds turned into JDBC's positional ones, as {@link BatchTransitions} prepares its statements. */
class NamedSqlTest {

    @Test
    void replacesEachBindByAPlaceholderAndRemembersItsName() {
        NamedSql sql = NamedSql.parse("SELECT :a::text, x FROM t WHERE y = :b AND z = :a");

        assertThat(sql.sql()).isEqualTo("SELECT ?::text, x FROM t WHERE y = ? AND z = ?");
        assertThat(sql.names()).containsExactly("a", "b", "a");
    }

    @Test
    void leavesCastsQuotedTextAndCommentsAlone() {
        NamedSql sql = NamedSql.parse("""
                -- binds: :notABind
                SELECT ':x' AS "col:y", E'it\\'s :z\\n', 'it''s :w', now()::timestamptz -- and :v
                FROM t WHERE a = :real""");

        assertThat(sql.sql()).isEqualTo("SELECT ':x' AS \"col:y\", E'it\\'s :z\\n', 'it''s :w', now()::timestamptz \n"
                + "FROM t WHERE a = ?");
        assertThat(sql.names()).containsExactly("real");
    }

    @Test
    void loadsEveryBatchStatementWithTheBindsItsHeaderNames() {
        assertThat(NamedSql.load("reserve").names()).containsOnly("topic", "push", "max",
                "defaultLeaseMs", "tokens", "expiresAfterMs");
        assertThat(NamedSql.load("ack").names()).containsOnly("topics", "ids", "tokens",
                "historySize");
        assertThat(NamedSql.load("enqueue").names()).containsOnlyElementsOf(CopyEnqueue.BINDS)
                .containsAll(CopyEnqueue.BINDS);
        assertThat(NamedSql.load("enqueue_copy_open").names()).containsOnly("topics", "push");
        assertThat(NamedSql.load("enqueue_copy_close").names()).containsOnly("topics", "counts",
                "wakes");
        assertThat(NamedSql.load("enqueue_copy").names()).isEmpty();
        assertThat(NamedSql.load("read_broadcast").names()).containsOnly("seq");
        assertThat(NamedSql.load("listen").sql()).isEqualTo("LISTEN delayq_wake;\nLISTEN delayq_broadcast");
    }
}
