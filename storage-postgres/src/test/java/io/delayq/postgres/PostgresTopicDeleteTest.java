package io.delayq.postgres;

import io.delayq.core.JobRef;
import io.delayq.core.NewJob;
import io.delayq.core.TopicSettings;
import io.delayq.postgres.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deleting a topic on PostgreSQL, where a topic's counters are sharded by connection ({@code pg_backend_pid() % 16}):
 * a job enqueued through one connection and cancelled through another leaves +1 on one shard and -1 on another. The
 * topic is empty (the shards sum to 0) and must be deleted; {@code topic_delete.sql} once checked each shard row, kept
 * the topic, and the store still answered that it was deleted (seen as a flaky TopicListingTest on PostgreSQL).
 * The test puts the counters in that state itself, so that it does not depend on which connections the pool hands out.
 */
class PostgresTopicDeleteTest {
    @Test
    void aTopicWhoseCountersCancelOutOverTwoShardsIsDeleted() throws Exception {
        String topic = "del-" + UUID.randomUUID();
        try (PostgresJobStore store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresStoreOptions.defaults());
             Connection sql = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                     TestPostgres.password())) {
            store.putSettings(topic, new TopicSettings(null, 4, null, null, null, null));
            store.enqueue(NewJob.delayed(topic, "j", "{}", 60_000, 1));
            store.cancel(new JobRef(topic, "j"));
            spreadOverTwoShards(sql, topic);
            assertThat(store.stats(topic).scheduled()).as("the shards sum to nothing").isZero();

            assertThat(store.deleteTopic(topic)).isTrue();
            assertThat(store.topics()).as("deleted, not only answered so").doesNotContain(topic);
            assertThat(store.settings(topic)).isEqualTo(TopicSettings.empty());
        }
    }

    @Test
    void suchATopicWithoutSettingsIsForgottenOnceIdle() throws Exception {
        String topic = "idle-" + UUID.randomUUID();
        try (PostgresJobStore store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                TestPostgres.password(), PostgresStoreOptions.defaults());
             Connection sql = DriverManager.getConnection(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                     TestPostgres.password())) {
            store.enqueue(NewJob.delayed(topic, "j", "{}", 60_000, 1));
            store.cancel(new JobRef(topic, "j"));
            spreadOverTwoShards(sql, topic);

            assertThat(store.forgetIfIdle(topic, 0)).as("idle at once with an idle time of 0").isTrue();
            assertThat(store.topics()).doesNotContain(topic);
        }
    }

    /** Moves the topic's counts so that one shard says +1 scheduled and another -1, as two connections leave them. */
    private static void spreadOverTwoShards(Connection sql, String topic) throws Exception {
        // as if the cancel had counted on another connection's shard: +1 on one shard, -1 on the next
        try (PreparedStatement moved = sql.prepareStatement("""
                WITH one AS (SELECT shard FROM delayq_counters WHERE topic = ? LIMIT 1),
                up AS (UPDATE delayq_counters c SET scheduled = c.scheduled + 1 FROM one
                       WHERE c.topic = ? AND c.shard = one.shard)
                INSERT INTO delayq_counters (topic, shard, scheduled)
                SELECT ?, (one.shard + 1) % 16, -1 FROM one
                ON CONFLICT (topic, shard) DO UPDATE SET scheduled = delayq_counters.scheduled - 1""")) {
            moved.setString(1, topic);
            moved.setString(2, topic);
            moved.setString(3, topic);
            moved.executeUpdate();
        }
    }
}
