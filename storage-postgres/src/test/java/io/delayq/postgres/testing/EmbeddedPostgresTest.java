package io.delayq.postgres.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test servers are real PostgreSQL servers that can be crashed and brought back without losing commits. */
class EmbeddedPostgresTest {

    @Test
    void sharedServerAnswersQueries() throws SQLException {
        String url = TestPostgres.sharedJdbcUrl();
        assertThat(TestPostgres.sharedJdbcUrl()).as("started once, same URL").isEqualTo(url);
        try (Connection c = DriverManager.getConnection(url, TestPostgres.user(), TestPostgres.password());
                Statement s = c.createStatement()) {
            assertThat(single(s, "select 1")).isEqualTo("1");
            if (System.getenv(TestPostgres.URL_ENV) == null) {
                assertThat(url).startsWith("jdbc:postgresql://127.0.0.1:").endsWith("/" + TestPostgres.DATABASE)
                        .doesNotContain(":5432/");
                assertThat(single(s, "select current_database()")).isEqualTo(TestPostgres.DATABASE);
                assertThat(single(s, "show server_version")).startsWith("16.");
                assertThat(single(s, "show fsync")).isEqualTo("off");
                assertThat(single(s, "show synchronous_commit")).isEqualTo("off");
                assertThat(single(s, "show max_connections")).isEqualTo("300");
            }
        }
    }

    @Test
    void privateServerKeepsACommittedRowAcrossAKillAndRestart(@TempDir Path dir) throws Exception {
        try (EmbeddedPostgres pg = TestPostgres.startPrivate(dir)) {
            assertThat(Files.isRegularFile(dir.resolve("data/PG_VERSION"))).isTrue();
            assertThat(Files.readString(dir.resolve("postgres.log"))).contains("database system is ready to accept connections");
            pg.createDatabase("crash");
            pg.createDatabase("crash"); // idempotent
            int port = pg.port();
            Connection before = connect(pg, "crash");
            try (Statement s = before.createStatement()) {
                assertThat(single(s, "show synchronous_commit")).as("private servers keep commits durable").isEqualTo("on");
                s.execute("create table acknowledged (id int primary key, payload text)");
                s.execute("insert into acknowledged values (1, 'committed before the crash')");
            }

            pg.kill();

            assertThat(portIsFree(port)).as("port free after kill").isTrue();
            assertThatThrownBy(() -> single(before.createStatement(), "select 1")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> connect(pg, "crash")).isInstanceOf(SQLException.class);

            pg.restart();

            assertThat(pg.port()).isEqualTo(port);
            try (Connection after = connect(pg, "crash"); Statement s = after.createStatement()) {
                assertThat(single(s, "select payload from acknowledged where id = 1")).isEqualTo("committed before the crash");
                assertThat(single(s, "select count(*) from acknowledged")).isEqualTo("1");
            }
            assertThat(Files.readString(dir.resolve("postgres.log")))
                    .as("the restart ran crash recovery")
                    .containsAnyOf("was interrupted", "not properly shut down");
        }
        assertThat(dir.resolve("data")).as("close() deletes the data").doesNotExist();
    }

    @Test
    void stopFreesThePort(@TempDir Path dir) throws Exception {
        try (EmbeddedPostgres pg = TestPostgres.startPrivate(dir)) {
            int port = pg.port();
            assertThat(portIsFree(port)).as("port taken while running").isFalse();
            try (Connection c = connect(pg, "postgres"); Statement s = c.createStatement()) {
                assertThat(single(s, "select 1")).isEqualTo("1");
            }

            pg.stop();

            assertThat(portIsFree(port)).as("port free after stop").isTrue();
            assertThatThrownBy(() -> connect(pg, "postgres")).isInstanceOf(SQLException.class);
            assertThat(Files.readString(dir.resolve("postgres.log"))).contains("database system is shut down");
            pg.stop(); // a second stop does nothing
        }
    }

    private static Connection connect(EmbeddedPostgres pg, String database) throws SQLException {
        return DriverManager.getConnection(pg.jdbcUrl(database), pg.user(), "");
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as(sql).isTrue();
            return rs.getString(1);
        }
    }

    private static boolean portIsFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
