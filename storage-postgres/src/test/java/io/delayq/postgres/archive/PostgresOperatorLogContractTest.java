package io.delayq.postgres.archive;

import io.delayq.core.OperatorLogContract;
import io.delayq.core.archive.JobArchive;
import io.delayq.postgres.testing.TestPostgres;

import java.time.Duration;

/**
 * The operator log contract against a real PostgreSQL server (the JVM's shared test server, or
 * DELAYQ_TEST_POSTGRES_URL).
 */
class PostgresOperatorLogContractTest extends OperatorLogContract {

    /** Tombstones kept a day: the operator log keeps its 30 days all the same. */
    @Override
    protected JobArchive newArchive() {
        return PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(), TestPostgres.password(),
                PostgresArchiveOptions.defaults().withTombstoneRetention(Duration.ofDays(1)));
    }

    @Override
    protected void expire(JobArchive archive, long nowMs) {
        ((PostgresOperatorLog) archive.operatorLog()).expire(nowMs);
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
}
