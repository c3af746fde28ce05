package io.delayq.postgres;

import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;
import io.delayq.postgres.testing.TestPostgres;

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
}
