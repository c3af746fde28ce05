package io.delayq.postgres;

import io.delayq.core.JobStore;
import io.delayq.core.ScheduleStoreContract;
import io.delayq.postgres.testing.TestPostgres;

/** The recurring schedules' contract against a real PostgreSQL server (the JVM's shared one). */
class PostgresScheduleStoreContractTest extends ScheduleStoreContract {
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
