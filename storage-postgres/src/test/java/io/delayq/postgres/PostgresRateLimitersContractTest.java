package io.delayq.postgres;

import io.delayq.core.JobStore;
import io.delayq.core.RateLimitersContract;
import io.delayq.postgres.testing.TestPostgres;

/** The token buckets' contract against a real PostgreSQL server (the JVM's shared one). */
class PostgresRateLimitersContractTest extends RateLimitersContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
