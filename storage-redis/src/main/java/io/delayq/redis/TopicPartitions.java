package io.delayq.redis;

import io.delayq.core.JobRules;
import io.delayq.redis.RedisKeys.Partition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;

/**
 * Which partition a job lives in: a topic's partitions come from its record in {@code dq:partitions} (written through
 * {@link TopicRegistry} when the topic is first written), cached in memory once known, so the hot path reads nothing.
 */
final class TopicPartitions {
    private static final Logger LOG = LoggerFactory.getLogger(TopicPartitions.class);

    private final RedisCalls calls;
    private final TopicRegistry registry;
    private final RedisStoreOptions options;
    private final Map<String, Partition[]> partitions = new ConcurrentHashMap<>();

    TopicPartitions(RedisCalls calls, TopicRegistry registry, RedisStoreOptions options) {
        this.calls = calls;
        this.registry = registry;
        this.options = options;
    }

    /** Topics whose partition count this instance caches or registered. */
    Set<String> cachedTopics() {
        Set<String> cached = new HashSet<>(partitions.keySet());
        cached.addAll(registry.registeredTopics());
        return cached;
    }

    /** Whether the topic's partition count is recorded (as far as this instance knows: it has jobs or settings). */
    boolean isRecorded(String topic) {
        return partitions.containsKey(topic);
    }

    /** Every topic with jobs or settings ({@code dq:topics}). */
    Set<String> topics() {
        UnifiedJedis redis = calls.client();
        return calls.call("topics", () -> new HashSet<>(redis.smembers(RedisKeys.TOPICS)));
    }

    /** Which of the names are members of {@code dq:topics}: one SMISMEMBER (Redis 6.2) per 1,000 names. */
    Set<String> among(Collection<String> names) {
        List<String> asked = List.copyOf(new LinkedHashSet<>(names));
        Set<String> found = new LinkedHashSet<>();
        UnifiedJedis redis = calls.client();
        for (int from = 0; from < asked.size(); from += 1_000) {
            List<String> chunk = asked.subList(from, Math.min(asked.size(), from + 1_000));
            List<Boolean> member = calls.call("topics",
                    () -> redis.smismember(RedisKeys.TOPICS, chunk.toArray(String[]::new)));
            for (int i = 0; i < chunk.size(); i++) {
                if (Boolean.TRUE.equals(member.get(i))) {
                    found.add(chunk.get(i));
                }
            }
        }
        return found;
    }

    /** The partition of a job, for reads and transitions of jobs that exist (see {@link #partitions}). */
    Partition partition(String topic, String id) {
        return pick(partitions(topic), id);
    }

    /** A job's partition: a stable hash of its id (CRC-32, the same on every instance), mod P. */
    static Partition pick(Partition[] ps, String id) {
        if (ps.length == 1) {
            return ps[0];
        }
        CRC32 crc = new CRC32();
        crc.update(id.getBytes(StandardCharsets.UTF_8));
        return ps[(int) (crc.getValue() % ps.length)];
    }

    /**
     * The partitions of a topic, for reading it. The count is recorded in Redis when the topic's first job or settings
     * are written ({@link #partitionsForWrite}), and that record wins over this instance's configuration: a job's
     * partition is a function of the count, so changing it for a topic that has jobs would strand them. A topic
     * without a record has no jobs: it is read with the configured count, and neither recorded nor cached, so that
     * reads of any name a caller makes up leave nothing in Redis or in memory, and a later writer's count is seen.
     */
    Partition[] partitions(String topic) {
        Partition[] known = partitions.get(topic);
        if (known != null) {
            return known;
        }
        JobRules.checkTopic(topic);
        int configured = options.partitionsOf(topic);
        String recorded = readRecord(topic);
        if (recorded == null) {
            return build(topic, PartitionRecord.forNewTopic(configured));
        }
        return partitions.computeIfAbsent(topic, t -> build(t, adopted(t, PartitionRecord.parse(t, recorded), configured)));
    }

    /**
     * The partitions of a topic about to get jobs or settings: the topic is registered now unless this process did
     * already ({@link TopicRegistry#register}: the recorded count wins, and a registry out of reach does not stop the
     * write).
     */
    Partition[] partitionsForWrite(String topic) {
        Partition[] known = partitions.get(topic);
        if (known != null && registry.isRegistered(topic)) {
            return known;
        }
        JobRules.checkTopic(topic);
        int configured = options.partitionsOf(topic);
        PartitionRecord record = registry.register(topic, PartitionRecord.forNewTopic(configured));
        return known != null ? known : partitions.computeIfAbsent(topic, t -> build(t, adopted(t, record, configured)));
    }

    /**
     * Every partition of every known topic; the outbox is read across all of them. Topics in {@code dq:topics} have
     * been written (jobs or settings), so recording a count that is missing (settings stored before counts were
     * recorded for them) is what their first job would do.
     */
    List<Partition> allPartitions() {
        List<Partition> all = new ArrayList<>();
        for (String topic : topics()) {
            all.addAll(Arrays.asList(partitionsForWrite(topic)));
        }
        return all;
    }

    private String readRecord(String topic) {
        UnifiedJedis redis = calls.client();
        return calls.call("read the partition count of topic " + topic, () -> redis.hget(RedisKeys.PARTITIONS, topic));
    }

    private static PartitionRecord adopted(String topic, PartitionRecord recorded, int configured) {
        if (recorded.count() != configured) {
            LOG.warn("topic {} has {} partition(s) recorded in Redis; this instance's configuration says {}, which is"
                    + " ignored: jobs stay in the partitions they were written to. To change the count, use a new"
                    + " topic.", topic, recorded.count(), configured);
        }
        return recorded;
    }

    private static Partition[] build(String topic, PartitionRecord record) {
        Partition[] ps = new Partition[record.count()];
        for (int i = 0; i < ps.length; i++) {
            ps[i] = record.spread() ? Partition.spread(topic, i, ps.length) : Partition.of(topic, i);
        }
        return ps;
    }
}
