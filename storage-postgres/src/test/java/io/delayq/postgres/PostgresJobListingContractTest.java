package io.delayq.postgres;

import io.delayq.core.JobListingContract;
import io.delayq.core.JobStore;
import io.delayq.postgres.testing.TestPostgres;

/** The job listing's contract against a real PostgreSQL server (the JVM's shared one). */
class PostgresJobListingContractTest extends JobListingContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
