package io.delayq.postgres;

import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;
import io.delayq.postgres.testing.TestPostgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/** The store contract against a real PostgreSQL server (the JVM's shared test server, or DELAYQ_TEST_POSTGRES_URL). */
class PostgresJobStoreContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }

    @Override
    protected JobStore newStoreWithRetention(long retentionMs) {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults().withFinishedRetention(Duration.ofMillis(retentionMs))
                        .withReaperInterval(Duration.ofMillis(100)));
    }

    @Override
    protected JobStore newUnreachableStore() {
        return PostgresJobStore.connect("jdbc:postgresql://127.0.0.1:1/delayq", "delayq", "",
                PostgresStoreOptions.defaults());
    }

    /** A backoff of a type this code does not know: the statements move the row, the row mapper cannot read it. */
    @Override
    protected void makeUnreadable(JobStore store, JobRef ref) {
        try (Connection c = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password());
             PreparedStatement update = c.prepareStatement(
                     "UPDATE delayq_jobs SET backoff = '{\"type\": \"from-a-later-version\"}' WHERE topic = ? AND id = ?")) {
            update.setString(1, ref.topic());
            update.setString(2, ref.id());
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("no job " + ref + " to spoil");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
