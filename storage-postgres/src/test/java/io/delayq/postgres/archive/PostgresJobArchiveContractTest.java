package io.delayq.postgres.archive;

import io.delayq.core.JobArchiveContract;
import io.delayq.core.JobStore;
import io.delayq.core.archive.JobArchive;
import io.delayq.postgres.PostgresJobStore;
import io.delayq.postgres.PostgresStoreOptions;
import io.delayq.postgres.testing.TestPostgres;

import java.time.Duration;

/** The archive contract against a real PostgreSQL server (the JVM's shared test server, or DELAYQ_TEST_POSTGRES_URL). */
class PostgresJobArchiveContractTest extends JobArchiveContract {

    @Override
    protected JobArchive newArchive() {
        return newArchiveWithRetention(Duration.ofDays(1), Duration.ofDays(1));
    }

    @Override
    protected JobArchive newArchiveWithRetention(Duration completedRetention, Duration tombstoneRetention) {
        return PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresArchiveOptions.defaults().withCompletedRetention(completedRetention)
                        .withTombstoneRetention(tombstoneRetention));
    }

    @Override
    protected void expire(JobArchive archive, long nowMs) {
        ((PostgresJobArchive) archive).expire(nowMs);
    }

    /**
     * Nothing listens on port 1: every connection is refused at once. Migrations are off, so that building succeeds
     * and every call meets the closed port itself.
     */
    @Override
    protected JobArchive newUnreachableArchive() {
        PostgresJobArchiveFactory factory = new PostgresJobArchiveFactory();
        factory.setDatabase(PostgresJobArchiveFactory.defaultDatabase());
        factory.getDatabase().setUrl("jdbc:postgresql://127.0.0.1:1/delayq?connectTimeout=1");
        factory.setRunMigrations(false);
        return factory.connect(new com.codahale.metrics.MetricRegistry());
    }

    /** The store on the same server. */
    @Override
    protected JobStore newStore() {
        return PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresStoreOptions.defaults());
    }
}
