package io.delayq.postgres;

import io.delayq.core.NewJob;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator's pages of topics ({@code topics_page.sql}) come in code point order, the order of a tenant's pages and
 * of Redis's index by name, also in a database whose default collation is not "C": here ICU's en-US, where '_' sorts
 * before '-' and "ta" before "tA" (the tests' shared database is initialised with the C locale, which cannot tell).
 */
class PostgresTopicOrderTest {

    @Test
    void pagesOfTopicsAreInCodePointOrderInADatabaseOfAnotherCollation() throws Exception {
        String database = "delayq_order_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection admin = connect(TestPostgres.sharedJdbcUrl()); Statement sql = admin.createStatement()) {
            sql.execute("CREATE DATABASE " + database + " TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'"
                    + " LOCALE_PROVIDER icu ICU_LOCALE 'en-US'");
        }
        String url = TestPostgres.sharedJdbcUrl().replace("/" + TestPostgres.DATABASE, "/" + database);
        try {
            try (Connection check = connect(url); Statement sql = check.createStatement();
                 ResultSet order = sql.executeQuery("SELECT 't_a' < 't-a' AND 'ta' < 'tA'")) {
                assertThat(order.next() && order.getBoolean(1)).as("the database's own collation is not code point"
                        + " order").isTrue();
            }
            List<String> names = List.of("t-a", "t.a", "t_a", "tA", "ta", "t0", "tb");
            try (PostgresJobStore store = PostgresJobStore.connect(url, TestPostgres.user(), TestPostgres.password(),
                    PostgresStoreOptions.defaults())) {
                names.forEach(t -> store.enqueue(NewJob.delayed(t, "j", "{}", 600_000, 1)));
                List<String> seen = new ArrayList<>();
                String after = null;
                List<String> page;
                do {
                    page = store.topics(after, 2);
                    seen.addAll(page);
                    after = page.isEmpty() ? null : page.get(page.size() - 1);
                } while (page.size() == 2);
                assertThat(seen).as("code point order: '-' < '.' < '0' < 'A' < '_' < 'a'")
                        .containsExactlyElementsOf(names.stream().sorted().toList());
            }
        } finally {
            try (Connection admin = connect(TestPostgres.sharedJdbcUrl()); Statement sql = admin.createStatement()) {
                sql.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            }
        }
    }

    private static Connection connect(String url) throws Exception {
        return DriverManager.getConnection(url, TestPostgres.user(), TestPostgres.password());
    }
}
