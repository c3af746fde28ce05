package io.delayq.postgres;

import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;
import io.delayq.postgres.testing.TestPostgres;

/** The store contract against a real PostgreSQL server (the JVM's shared test server, or DELAYQ_TEST_POSTGRES_URL). */
class PostgresJobStoreContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
