package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.NewJob;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** What the operator views keep in Redis, read back raw (the history keys of storage-redis/README.md). */
class RedisOperatorViewsTest {
    private final String uri = TestRedis.sharedUri();
    private final String topic = "t-" + UUID.randomUUID();
    private final RedisFixtures raw = new RedisFixtures(uri);
    private final RedisJobStore store = RedisJobStore.connect(uri);

    @AfterEach
    void close() {
        store.close();
        raw.close();
    }

    @Test
    void aMinuteIsOneHashUnderTheTopicsHashTagThatExpiresWithTheRetention() {
        long now = store.now();
        long minute = now - now % TopicMinute.MINUTE_MS;
        long[] lateness = new long[LatenessBuckets.COUNT];
        lateness[3] = 4;
        store.addHistory(List.of(new TopicMinute(topic, minute, 5, 4, 0, 1, lateness)));

        String key = RedisKeys.topicMinute(topic, minute);
        assertThat(key).isEqualTo("dq:{" + topic + "}:minute:" + minute);
        assertThat(JedisClusterCRC16.getSlot(key))
                .isEqualTo(JedisClusterCRC16.getSlot(RedisKeys.topicMinute(topic, minute + TopicMinute.MINUTE_MS)));
        // zero counts are not written: fields e, d, x and the one lateness bucket only
        assertThat(raw.redis().hgetAll(key)).isEqualTo(Map.of("e", "5", "d", "4", "x", "1", "l3", "4"));
        // PEXPIRETIME needs Redis 7: the time to live, read just before the store's clock
        long ttl = raw.redis().pttl(key);
        long untilExpiry = minute + TopicMinute.RETENTION_MS - store.now();
        assertThat(ttl).isBetween(untilExpiry, untilExpiry + 2_000);
    }

    @Test
    void aMinutePastTheRetentionIsNotKept() {
        long now = store.now();
        long old = now - now % TopicMinute.MINUTE_MS - TopicMinute.RETENTION_MS - TopicMinute.MINUTE_MS;
        store.addHistory(List.of(new TopicMinute(topic, old, 1, 0, 0, 0, new long[LatenessBuckets.COUNT])));

        assertThat(raw.redis().exists(RedisKeys.topicMinute(topic, old))).isFalse();
    }

    @Test
    void aDamagedLeasedRecordHidesNoOtherLease() {
        store.enqueue(List.of(NewJob.delayed(topic, "good", "{}", 0, 3), NewJob.delayed(topic, "bad", "{}", 0, 3)));
        assertThat(store.reserve(topic, Delivery.PULL, 2, 60_000).leases()).hasSize(2);
        Partition p = Partition.of(topic, 0);
        String record = raw.redis().hget(p.jobs(), "bad");
        // JSON no script can decode in the head; the head's first field stays as it was
        raw.redis().hset(p.jobs(), "bad", record.substring(0, record.indexOf('\n')) + "|{not json\n{}");

        assertThat(store.leasesInFlight(topic, 10)).extracting(LeaseInFlight::id).containsExactlyInAnyOrder("good", "bad");
    }
}
