package io.delayq.redis;

import io.delayq.core.TopicStats;
import io.delayq.core.TopicTimes;
import io.delayq.redis.RedisKeys.Partition;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.resps.Tuple;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Reads of many topics at once, each in one pipeline over every partition of every topic, so one round trip per node
 * on a cluster where reading them topic by topic costs a round trip per read and partition:
 * <ul>
 *   <li>{@link #stats}: the counts ({@code JobStore.stats(Collection)}: a tenant's pending jobs are the sum over its
 *       topics): what {@link TopicReads#stats} reads of each partition (both lanes' and the leases' ZCARD, the dead and
 *       succeeded counters, and each lane's earliest runAt);</li>
 *   <li>{@link #times}: each lane's earliest runAt and the earliest lease deadline ({@code JobStore.times}: what the
 *       engine's sweeps read of every topic each round).</li>
 * </ul>
 */
final class TopicBatchReads {
    private final RedisCalls calls;
    private final TopicPartitions topics;

    TopicBatchReads(RedisCalls calls, TopicPartitions topics) {
        this.calls = calls;
        this.topics = topics;
    }

    /** One partition's answers, read after the pipeline's sync. */
    private record PartitionReads(String topic, Response<Long> push, Response<Long> pull, Response<Long> leased,
                                  Response<List<String>> counters, Response<List<Tuple>> firstPush,
                                  Response<List<Tuple>> firstPull) {
    }

    /** One partition's first entries, read after the pipeline's sync. */
    private record PartitionHeads(String topic, Response<List<Tuple>> firstPush, Response<List<Tuple>> firstPull,
                                  Response<List<Tuple>> firstLease) {
    }

    Map<String, TopicStats> stats(Collection<String> asked) {
        Map<String, Partition[]> partitions = partitionsOf(asked);
        if (partitions.isEmpty()) {
            return new LinkedHashMap<>();
        }
        return calls.call("read the stats of " + partitions.size() + " topics", () -> {
            List<PartitionReads> reads = new ArrayList<>();
            try (AbstractPipeline pipe = calls.pipelined()) {
                partitions.forEach((topic, ps) -> {
                    for (Partition p : ps) {
                        reads.add(new PartitionReads(topic, pipe.zcard(p.schedPush()), pipe.zcard(p.schedPull()),
                                pipe.zcard(p.leased()), pipe.hmget(p.stats(), "dead", "succeeded"),
                                pipe.zrangeWithScores(p.schedPush(), 0, 0), pipe.zrangeWithScores(p.schedPull(), 0, 0)));
                    }
                });
                pipe.sync();
            }
            Map<String, TopicStats> out = new LinkedHashMap<>();
            partitions.keySet().forEach(t -> out.put(t, new TopicStats(t, 0, 0, 0, 0, -1)));
            for (PartitionReads r : reads) {
                out.put(r.topic(), add(out.get(r.topic()), r));
            }
            return out;
        });
    }

    Map<String, TopicTimes> times(Collection<String> asked) {
        Map<String, Partition[]> partitions = partitionsOf(asked);
        if (partitions.isEmpty()) {
            return new LinkedHashMap<>();
        }
        return calls.call("read the next due times of " + partitions.size() + " topics", () -> {
            List<PartitionHeads> reads = new ArrayList<>();
            try (AbstractPipeline pipe = calls.pipelined()) {
                partitions.forEach((topic, ps) -> {
                    for (Partition p : ps) {
                        reads.add(new PartitionHeads(topic, pipe.zrangeWithScores(p.schedPush(), 0, 0),
                                pipe.zrangeWithScores(p.schedPull(), 0, 0), pipe.zrangeWithScores(p.leased(), 0, 0)));
                    }
                });
                pipe.sync();
            }
            Map<String, TopicTimes> out = new LinkedHashMap<>();
            partitions.keySet().forEach(t -> out.put(t, TopicTimes.none(t)));
            for (PartitionHeads r : reads) {
                TopicTimes sum = out.get(r.topic());
                out.put(r.topic(), new TopicTimes(r.topic(),
                        TopicReads.earlier(sum.pushDueAt(), first(r.firstPush().get())),
                        TopicReads.earlier(sum.pullDueAt(), first(r.firstPull().get())),
                        TopicReads.earlier(sum.leaseDeadline(), first(r.firstLease().get()))));
            }
            return out;
        });
    }

    /** Each topic once, in the order asked; a topic this instance has not met yet costs one read of its record here. */
    private Map<String, Partition[]> partitionsOf(Collection<String> asked) {
        Map<String, Partition[]> partitions = new LinkedHashMap<>();
        for (String topic : new LinkedHashSet<>(asked)) {
            partitions.put(topic, topics.partitions(topic));
        }
        return partitions;
    }

    private static TopicStats add(TopicStats sum, PartitionReads r) {
        List<String> counters = r.counters().get();
        long next = TopicReads.earlier(sum.nextRunAt(), first(r.firstPush().get()));
        next = TopicReads.earlier(next, first(r.firstPull().get()));
        return new TopicStats(sum.topic(), sum.scheduled() + r.push().get() + r.pull().get(),
                sum.leased() + r.leased().get(), sum.dead() + count(counters.get(0)),
                sum.succeeded() + count(counters.get(1)), next);
    }

    private static long first(List<Tuple> head) {
        return head.isEmpty() ? -1 : (long) head.get(0).getScore();
    }

    private static long count(String counter) {
        return counter == null ? 0 : Long.parseLong(counter);
    }
}
