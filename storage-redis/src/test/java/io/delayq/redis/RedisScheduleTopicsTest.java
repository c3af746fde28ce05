package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.testing.StoreFixtures;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code dq:schedule-topics} holds the topics that have a schedule, no more: the scheduler's due check reads one due
 * set per member, so a topic leaves it with its last schedule (against the JVM's shared Redis server).
 */
class RedisScheduleTopicsTest {

    @Test
    void aTopicLeavesTheScheduleTopicsWithItsLastScheduleAndComesBackWithTheNext() {
        String topic = StoreFixtures.newTopic();
        try (JobStore store = RedisJobStore.connect(TestRedis.sharedUri());
             UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri())) {
            store.schedules().put(topic, "a", "{}", store.now() + 60_000);
            store.schedules().put(topic, "b", "{}", store.now() + 60_000);
            assertThat(redis.sismember(RedisKeys.SCHEDULE_TOPICS, topic)).isTrue();

            assertThat(store.schedules().delete(topic, "a")).isTrue();
            assertThat(redis.sismember(RedisKeys.SCHEDULE_TOPICS, topic)).as("b is left").isTrue();
            assertThat(store.schedules().delete(topic, "missing")).isFalse();
            assertThat(redis.sismember(RedisKeys.SCHEDULE_TOPICS, topic)).isTrue();

            assertThat(store.schedules().delete(topic, "b")).isTrue();
            assertThat(redis.sismember(RedisKeys.SCHEDULE_TOPICS, topic)).as("its last schedule went").isFalse();

            store.schedules().put(topic, "c", "{}", store.now() - 1);
            assertThat(redis.sismember(RedisKeys.SCHEDULE_TOPICS, topic)).isTrue();
            assertThat(store.schedules().due(store.now(), 1_000)).extracting(r -> r.topic() + "/" + r.name())
                    .contains(topic + "/c");
        }
    }
}
