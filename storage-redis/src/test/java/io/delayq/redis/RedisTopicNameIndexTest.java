package io.delayq.redis;

import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The indexes by name of {@code dq:topics} and {@code dq:schedule-topics} ({@link TopicNameIndex}) against the JVM's
 * shared Redis server: kept in step with their SETs by every write, and brought in step at the store's start with
 * SETs an earlier version wrote alone (members without an entry, entries of members it took out).
 */
class RedisTopicNameIndexTest {
    private final String run = "ix-" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aStoreOpenedOnSetsWrittenWithoutTheIndexListsTheirTopicsAndDropsEntriesTheyLost() {
        String p = run + ".a.";
        String old = p + "old";
        String older = p + "older";
        String stale = p + "stale";
        String s = run + ".s.";
        String scheduled = s + "scheduled";
        try (JobStore store = RedisJobStore.connect(TestRedis.sharedUri());
             UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri())) {
            store.schedules().put(scheduled, "s", "{}", null);
            // what an earlier version leaves: members of the SETs without index entries, and an entry whose member
            // it took out of the SET (a topic it forgot)
            redis.sadd(RedisKeys.TOPICS, old, older);
            redis.zadd(RedisKeys.TOPICS_BY_NAME, 0, stale);
            redis.zrem(RedisKeys.SCHEDULE_TOPICS_BY_NAME, scheduled);
            assertThat(store.topicsStartingWith(p, null, 10)).as("this store read the index as it was")
                    .containsExactly(stale);
            assertThat(store.schedules().counts(s, null, 10)).isEmpty();
        }

        try (JobStore reopened = RedisJobStore.connect(TestRedis.sharedUri())) {
            assertThat(reopened.topicsStartingWith(p, null, 10)).containsExactly(old, older);
            assertThat(reopened.topics(p, 10)).startsWith(old, older);
            assertThat(reopened.schedules().counts(s, null, 10)).containsExactly(entry(scheduled, 1L));
        }
    }

    @Test
    void everyWriteOfTheSetsWritesTheirIndexes() {
        String topic = run + ".t";
        try (JobStore store = RedisJobStore.connect(TestRedis.sharedUri());
             UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri())) {
            store.enqueue(NewJob.delayed(topic, "j", "{}", 60_000, 1));
            assertThat(redis.zscore(RedisKeys.TOPICS_BY_NAME, topic)).as("registered").isEqualTo(0.0);

            store.cancel(new JobRef(topic, "j"));
            assertThat(store.deleteTopic(topic)).isTrue();
            assertThat(redis.sismember(RedisKeys.TOPICS, topic)).isFalse();
            assertThat(redis.zscore(RedisKeys.TOPICS_BY_NAME, topic)).as("forgotten with it").isNull();
            assertThat(redis.hexists(RedisKeys.TOPICS_FORGOTTEN, topic)).as("its tombstone").isTrue();

            store.schedules().put(topic, "s", "{}", null);
            assertThat(redis.zscore(RedisKeys.SCHEDULE_TOPICS_BY_NAME, topic)).isEqualTo(0.0);
            store.schedules().delete(topic, "s");
            assertThat(redis.sismember(RedisKeys.SCHEDULE_TOPICS, topic)).isFalse();
            assertThat(redis.zscore(RedisKeys.SCHEDULE_TOPICS_BY_NAME, topic)).as("its last schedule went").isNull();
        }
    }
}
