package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
import io.delayq.core.history.OperatorViewArguments;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The dashboard's views on Redis: the due forecast, the leases in flight and the per-topic minute history. Each is a
 * fixed number of commands per call, sent as one pipeline (one round trip per node on a cluster); none scans.
 * storage-redis/README.md has the keys and the cost of each.
 */
final class RedisOperatorViews {
    /** enqueued, delivered, failed, dead, expired (dead of cause EXPIRED), no-retry (dead of cause NO_RETRY) */
    private static final String[] COUNT_FIELDS = {"e", "d", "f", "x", "xe", "xn"};

    private final RedisCalls calls;
    private final TopicPartitions topics;

    RedisOperatorViews(RedisCalls calls, TopicPartitions topics) {
        this.calls = calls;
        this.topics = topics;
    }

    /** One ZCOUNT per bucket, lane and partition (O(log N) each), all in one pipeline. */
    long[] dueForecast(String topic, long fromMs, long bucketMs, int buckets) {
        OperatorViewArguments.forecastEnd(topic, fromMs, bucketMs, buckets);
        Partition[] ps = topics.partitions(topic);
        List<Response<Long>> counts = new ArrayList<>(ps.length * 2 * buckets);
        try (AbstractPipeline pipeline = calls.pipelined()) {
            for (Partition p : ps) {
                for (Delivery lane : Delivery.values()) {
                    for (int i = 0; i < buckets; i++) {
                        long start = fromMs + i * bucketMs;
                        // scores are run times in ms; "(" makes the window's end exclusive
                        counts.add(pipeline.zcount(p.scheduled(lane), Long.toString(start),
                                "(" + (start + bucketMs)));
                    }
                }
            }
            pipeline.sync();
        }
        long[] forecast = new long[buckets];
        for (int c = 0; c < counts.size(); c++) {
            forecast[c % buckets] += counts.get(c).get();
        }
        return forecast;
    }

    /**
     * The first {@code limit} entries of each partition's lease ZSET with their record's head ({@code leases.lua},
     * pipelined), merged by deadline.
     */
    List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        OperatorViewArguments.checkLeaseLimit(topic, limit);
        Partition[] ps = topics.partitions(topic);
        List<List<String>> keys = new ArrayList<>(ps.length);
        List<List<String>> args = new ArrayList<>(ps.length);
        for (Partition p : ps) {
            keys.add(List.of(p.jobs(), p.leased()));
            args.add(List.of(Integer.toString(limit)));
        }
        List<LeaseInFlight> leases = new ArrayList<>();
        for (Object answer : calls.evalAll(Op.LEASES, keys, args)) {
            List<?> entries = (List<?>) answer;
            for (int i = 0; i + 2 < entries.size(); i += 3) {
                leases.add(leaseInFlight((String) entries.get(i), (String) entries.get(i + 1),
                        (String) entries.get(i + 2)));
            }
        }
        leases.sort(Comparator.comparingLong(LeaseInFlight::deadlineMs).thenComparing(LeaseInFlight::id));
        return leases.size() > limit ? List.copyOf(leases.subList(0, limit)) : leases;
    }

    /** From the first field of a leased record's head: {@code L}, {@code P} for the push lane, attempts in base 36. */
    private static LeaseInFlight leaseInFlight(String id, String deadline, String head) {
        boolean push = head.length() > 1 && head.charAt(1) == 'P';
        String attempts = head.substring(push ? 2 : 1);
        return new LeaseInFlight(id, push ? Delivery.PUSH : Delivery.PULL,
                attempts.isEmpty() ? 0 : Integer.parseInt(attempts, 36), (long) Double.parseDouble(deadline));
    }

    /**
     * HINCRBY per non-zero count and PEXPIREAT per minute, all in one pipeline. Each HINCRBY is atomic, so concurrent
     * instances add up without a script: nothing here reads before it writes.
     */
    void addHistory(List<TopicMinute> increments) {
        List<TopicMinute> minutes = OperatorViewArguments.mergedIncrements(increments);
        if (minutes.isEmpty()) {
            return;
        }
        List<Response<?>> replies = new ArrayList<>();
        try (AbstractPipeline pipeline = calls.pipelined()) {
            for (TopicMinute m : minutes) {
                String key = RedisKeys.topicMinute(m.topic(), m.minute());
                long[] counts = {m.enqueued(), m.delivered(), m.failed(), m.dead(), m.expired(), m.noRetry()};
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] != 0) {
                        replies.add(pipeline.hincrBy(key, COUNT_FIELDS[i], counts[i]));
                    }
                }
                for (int b = 0; b < LatenessBuckets.COUNT; b++) {
                    if (m.lateness()[b] != 0) {
                        replies.add(pipeline.hincrBy(key, "l" + b, m.lateness()[b]));
                    }
                }
                // the minute leaves with its retention, however many instances keep adding to it
                replies.add(pipeline.pexpireAt(key, m.minute() + TopicMinute.RETENTION_MS));
            }
            pipeline.sync();
        }
        replies.forEach(Response::get); // a command Redis refused fails the call
    }

    /** One HGETALL per minute of the range (at most 10,080), in one pipeline to the topic's node. */
    List<TopicMinute> history(String topic, long fromMinute, long toMinute) {
        long first = OperatorViewArguments.firstMinute(topic, fromMinute, toMinute);
        List<Long> starts = new ArrayList<>();
        List<Response<Map<String, String>>> reads = new ArrayList<>();
        try (AbstractPipeline pipeline = calls.pipelined()) {
            for (long m = first; m < toMinute; m += TopicMinute.MINUTE_MS) {
                starts.add(m);
                reads.add(pipeline.hgetAll(RedisKeys.topicMinute(topic, m)));
            }
            pipeline.sync();
        }
        List<TopicMinute> minutes = new ArrayList<>();
        for (int i = 0; i < reads.size(); i++) {
            TopicMinute m = topicMinute(topic, starts.get(i), reads.get(i).get());
            if (!m.isEmpty()) {
                minutes.add(m);
            }
        }
        return minutes;
    }

    /** A minute's HASH as a TopicMinute; fields this version does not know are ignored. */
    private static TopicMinute topicMinute(String topic, long minute, Map<String, String> fields) {
        long[] lateness = new long[LatenessBuckets.COUNT];
        for (int b = 0; b < lateness.length; b++) {
            lateness[b] = count(fields, "l" + b);
        }
        return new TopicMinute(topic, minute, count(fields, "e"), count(fields, "d"), count(fields, "f"),
                count(fields, "x"), count(fields, "xe"), count(fields, "xn"), lateness);
    }

    private static long count(Map<String, String> fields, String field) {
        String value = fields.get(field);
        return value == null ? 0 : Long.parseLong(value);
    }
}
