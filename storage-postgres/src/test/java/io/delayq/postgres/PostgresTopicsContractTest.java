package io.delayq.postgres;

import io.delayq.core.JobStore;
import io.delayq.core.TopicsContract;
import io.delayq.postgres.testing.TestPostgres;

/** The topic list's contract (issue 26) against a real PostgreSQL server (the JVM's shared one). */
class PostgresTopicsContractTest extends TopicsContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
