package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.TopicStats;
import io.delayq.redis.RedisKeys.Partition;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

import java.util.List;
import java.util.Optional;

/** The reads of jobs and topics that change nothing: a job by id, a topic's next due time and lease deadline, its counts. */
final class TopicReads {
    private final RedisCalls calls;
    private final TopicPartitions topics;
    private final RecordCodec codec;

    TopicReads(RedisCalls calls, TopicPartitions topics, RecordCodec codec) {
        this.calls = calls;
        this.topics = topics;
        this.codec = codec;
    }

    Optional<Job> find(JobRef ref) {
        Partition p = topics.partition(ref.topic(), ref.id());
        UnifiedJedis redis = calls.client();
        String record = calls.call("find", () -> redis.hget(p.jobs(), ref.id()));
        return record == null ? Optional.empty() : Optional.of(codec.decode(ref.topic(), ref.id(), record));
    }

    long nextLeaseDeadline(String topic) {
        long next = -1;
        for (Partition p : topics.partitions(topic)) {
            next = earlier(next, firstScore(p.leased()));
        }
        return next;
    }

    long nextDueAt(String topic, Delivery lane) {
        long next = -1;
        for (Partition p : topics.partitions(topic)) {
            next = earlier(next, firstScore(p.scheduled(lane)));
        }
        return next;
    }

    TopicStats stats(String topic) {
        UnifiedJedis redis = calls.client();
        long scheduled = 0;
        long leased = 0;
        long dead = 0;
        long succeeded = 0;
        long next = -1;
        for (Partition p : topics.partitions(topic)) {
            scheduled += calls.call("stats", () -> redis.zcard(p.schedPush()) + redis.zcard(p.schedPull()));
            leased += calls.call("stats", () -> redis.zcard(p.leased()));
            List<String> counters = calls.call("stats", () -> redis.hmget(p.stats(), "dead", "succeeded"));
            dead += counters.get(0) == null ? 0 : Long.parseLong(counters.get(0));
            succeeded += counters.get(1) == null ? 0 : Long.parseLong(counters.get(1));
            next = earlier(next, firstScore(p.schedPush()));
            next = earlier(next, firstScore(p.schedPull()));
        }
        return new TopicStats(topic, scheduled, leased, dead, succeeded, next);
    }

    private long firstScore(String zset) {
        UnifiedJedis redis = calls.client();
        List<Tuple> first = calls.call("read", () -> redis.zrangeWithScores(zset, 0, 0));
        return first.isEmpty() ? -1 : (long) first.get(0).getScore();
    }

    /** The earlier of two times, where -1 is "none". */
    static long earlier(long a, long b) {
        if (a < 0) {
            return b;
        }
        if (b < 0) {
            return a;
        }
        return Math.min(a, b);
    }
}
