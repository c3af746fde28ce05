package io.delayq.postgres;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.archive.JobArchive;
import io.delayq.postgres.archive.PostgresJobArchiveFactory;
import io.delayq.postgres.testing.TestPostgres;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.lifecycle.JettyManaged;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;
import java.util.UUID;

import static io.delayq.core.testing.ArchiveFixtures.deadJob;
import static io.delayq.core.testing.ArchiveFixtures.entry;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SharedDataSourcesTest {

    /** The shared test server under a URL of this test's own, so that no other test's pool is counted. */
    private static String url() {
        String base = TestPostgres.sharedJdbcUrl();
        return base + (base.contains("?") ? "&" : "?") + "ApplicationName=pool-" + UUID.randomUUID();
    }

    private static DataSourceFactory database(String url, String user, String password) {
        DataSourceFactory db = new PostgresJobStoreFactory().getDatabase();
        db.setUrl(url);
        db.setUser(user);
        db.setPassword(password);
        return db;
    }

    @Test
    void theSameUrlAndUserShareOnePoolUntilTheLastLetsGo() throws Exception {
        String url = url();
        String user = TestPostgres.user();
        SharedDataSources.Lease first = SharedDataSources.acquire(database(url, user, TestPostgres.password()),
                new MetricRegistry(), "first");
        SharedDataSources.Lease second = SharedDataSources.acquire(database(url, user, TestPostgres.password()),
                new MetricRegistry(), "second");

        assertThat(second.dataSource()).isSameAs(first.dataSource());
        assertThat(SharedDataSources.users(url, user)).isEqualTo(2);
        try (Connection c = second.dataSource().getConnection()) {
            assertThat(c.isValid(1)).isTrue();
        }

        first.close();
        first.close(); // twice releases once
        assertThat(SharedDataSources.users(url, user)).isEqualTo(1);
        try (Connection c = second.dataSource().getConnection()) {
            assertThat(c.isValid(1)).as("still open for the other user").isTrue();
        }
        second.close();
        assertThat(SharedDataSources.users(url, user)).isZero();

        try (SharedDataSources.Lease again = SharedDataSources.acquire(database(url, user, TestPostgres.password()),
                new MetricRegistry(), "again")) {
            assertThat(again.dataSource()).as("a new pool after the last one closed").isNotSameAs(first.dataSource());
        }
    }

    @Test
    void anotherUrlOrUserGetsAPoolOfItsOwn() {
        String url = url();
        String other = url();
        try (SharedDataSources.Lease a = SharedDataSources.acquire(database(url, "alice", ""), new MetricRegistry(), "a");
             SharedDataSources.Lease b = SharedDataSources.acquire(database(other, "alice", ""), new MetricRegistry(), "b");
             SharedDataSources.Lease c = SharedDataSources.acquire(database(url, "bob", ""), new MetricRegistry(), "c")) {
            assertThat(List.of(a.dataSource(), b.dataSource(), c.dataSource())).doesNotHaveDuplicates();
            assertThat(SharedDataSources.users(url, "alice")).isEqualTo(1);
            assertThat(SharedDataSources.users(url, "bob")).isEqualTo(1);
        }
        assertThat(SharedDataSources.users(url, "alice")).isZero();
    }

    @Test
    void anotherPasswordForTheSameUserIsRefused() {
        String url = url();
        try (SharedDataSources.Lease a = SharedDataSources.acquire(database(url, "alice", "one"), new MetricRegistry(),
                "job store")) {
            assertThatThrownBy(() -> SharedDataSources.acquire(database(url, "alice", "two"), new MetricRegistry(),
                    "archive")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("passwords");
            assertThat(SharedDataSources.users(url, "alice")).isEqualTo(1);
        }
    }

    /** What the service does with store: {type: postgres} and archive: {type: postgres} without a database. */
    @Test
    void aStoreAndAnArchiveOnOneDatabaseUseOnePool() throws Exception {
        String url = url();
        String user = TestPostgres.user();
        PostgresJobStoreFactory storeFactory = new PostgresJobStoreFactory();
        storeFactory.setDatabase(database(url, user, TestPostgres.password()));
        PostgresJobArchiveFactory archiveFactory = new PostgresJobArchiveFactory();
        assertThat(archiveFactory.useStoreDatabase(storeFactory)).isTrue();

        LifecycleEnvironment storeLifecycle = new LifecycleEnvironment(new MetricRegistry());
        LifecycleEnvironment archiveLifecycle = new LifecycleEnvironment(new MetricRegistry());
        JobStore store = storeFactory.build(storeLifecycle, new HealthCheckRegistry(), new MetricRegistry());
        assertThat(SharedDataSources.users(url, user)).isEqualTo(1);
        JobArchive archive = archiveFactory.build(archiveLifecycle, new HealthCheckRegistry(), new MetricRegistry());
        assertThat(SharedDataSources.users(url, user)).as("one pool, two users").isEqualTo(2);

        String topic = newTopic();
        assertThat(store.enqueue(NewJob.delayed(topic, "a", "{}", 60_000, 3)).created()).isTrue();
        archive.write(List.of(entry(deadJob(topic, "b", 1_000, 5_000))));

        stop(storeLifecycle);
        assertThat(SharedDataSources.users(url, user)).isEqualTo(1);
        assertThat(archive.deadLetter(new JobRef(topic, "b"))).as("the archive keeps the pool").isPresent();
        stop(archiveLifecycle);
        assertThat(SharedDataSources.users(url, user)).as("closed with its last user").isZero();
    }

    /** Two configurations of one database (store and archive each with a database block): still one pool. */
    @Test
    void twoFactoriesNamingTheSameDatabaseShareItsPool() throws Exception {
        String url = url();
        String user = TestPostgres.user();
        PostgresJobStoreFactory storeFactory = new PostgresJobStoreFactory();
        storeFactory.setDatabase(database(url, user, TestPostgres.password()));
        PostgresJobArchiveFactory archiveFactory = new PostgresJobArchiveFactory();
        archiveFactory.setDatabase(database(url, user, TestPostgres.password()));

        LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
        storeFactory.build(lifecycle, new HealthCheckRegistry(), new MetricRegistry());
        archiveFactory.build(lifecycle, new HealthCheckRegistry(), new MetricRegistry());

        assertThat(SharedDataSources.users(url, user)).isEqualTo(2);
        stop(lifecycle);
        assertThat(SharedDataSources.users(url, user)).isZero();
    }

    private static void stop(LifecycleEnvironment lifecycle) throws Exception {
        for (var managed : lifecycle.getManagedObjects()) {
            ((JettyManaged) managed).getManaged().stop();
        }
    }
}
