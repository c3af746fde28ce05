package io.delayq.postgres;

import io.delayq.core.ExpiryContract;
import io.delayq.core.JobStore;
import io.delayq.postgres.testing.TestPostgres;

/** Expiry and dead causes against a real PostgreSQL server (the JVM's shared one). */
class PostgresExpiryContractTest extends ExpiryContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
