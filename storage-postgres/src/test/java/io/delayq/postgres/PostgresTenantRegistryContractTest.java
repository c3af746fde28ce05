package io.delayq.postgres;

import io.delayq.core.JobStore;
import io.delayq.core.TenantRegistryContract;
import io.delayq.postgres.testing.TestPostgres;

/** The tenant registry's contract against a real PostgreSQL server (the JVM's shared one). */
class PostgresTenantRegistryContractTest extends TenantRegistryContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
