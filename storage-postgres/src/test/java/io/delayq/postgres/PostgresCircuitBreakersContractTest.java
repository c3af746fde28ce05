package io.delayq.postgres;

import io.delayq.core.CircuitBreakersContract;
import io.delayq.core.JobStore;
import io.delayq.postgres.testing.TestPostgres;

/** The circuits' contract (issue 26) against a real PostgreSQL server (the JVM's shared one). */
class PostgresCircuitBreakersContractTest extends CircuitBreakersContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
