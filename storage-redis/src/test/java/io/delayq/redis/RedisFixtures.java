package io.delayq.redis;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobRef;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.testing.EmbeddedCluster;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Reads the raw Redis state of a store, for tests that check what the scripts wrote. */
final class RedisFixtures implements AutoCloseable {
    private final UnifiedJedis redis;
    private final ObjectMapper mapper = new ObjectMapper();

    RedisFixtures(String uri) {
        this.redis = RedisClient.create(uri);
    }

    UnifiedJedis redis() {
        return redis;
    }

    String record(Partition p, String id) {
        return redis.hget(p.jobs(), id);
    }

    /** The parsed head of a record (format in lua/lib/record.lua). */
    record Head(char state, boolean push, int attempts, int maxAttempts, long createdAt, long runAt, String fingerprint,
                JsonNode extra, String text) {
    }

    Head head(Partition p, String id) throws Exception {
        String record = record(p, id);
        String text = record.substring(0, record.indexOf('\n'));
        String[] f = text.split("\\|", 6);
        boolean push = f[0].length() > 1 && f[0].charAt(1) == 'P';
        String attempts = f[0].substring(push ? 2 : 1);
        return new Head(f[0].charAt(0), push, attempts.isEmpty() ? 0 : Integer.parseInt(attempts, 36),
                Integer.parseInt(f[1], 36), Long.parseLong(f[2], 36), Long.parseLong(f[3], 36), f[4],
                f.length > 5 ? mapper.readTree(f[5]) : mapper.createObjectNode(), text);
    }

    String payload(Partition p, String id) {
        String record = record(p, id);
        return record.substring(record.indexOf('\n') + 1);
    }

    /** id → score, in score order. */
    Map<String, Long> entries(String zset) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Tuple t : redis.zrangeWithScores(zset, 0, -1)) {
            out.put(t.getElement(), (long) t.getScore());
        }
        return out;
    }

    /** The master that serves {@code key}, by the slot ranges {@code cluster} was formed with. */
    static EmbeddedRedis masterOf(EmbeddedCluster cluster, String key) {
        int slot = JedisClusterCRC16.getSlot(key);
        List<EmbeddedRedis> masters = cluster.masters();
        return masters.get(Math.min(masters.size() - 1, slot / (RedisKeys.SLOTS / masters.size())));
    }

    /** The port of the master that {@code node} says serves {@code slot} (its CLUSTER SLOTS), or -1. */
    static int servedBy(EmbeddedRedis node, int slot) {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 1_000)) {
            for (Object range : jedis.clusterSlots()) {
                List<?> r = (List<?>) range;
                if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
                    return ((Long) ((List<?>) r.get(2)).get(1)).intValue();
                }
            }
            return -1;
        }
    }

    /** A new topic whose one partition is served by {@code master} (ranges as the cluster was formed). */
    static String topicOn(EmbeddedCluster cluster, EmbeddedRedis master, String prefix) {
        for (int i = 0; ; i++) {
            String topic = prefix + i + "-" + UUID.randomUUID().toString().substring(0, 8);
            if (masterOf(cluster, Partition.of(topic, 0).jobs()) == master) {
                return topic;
            }
        }
    }

    /**
     * Gives a stored job a backoff that is not JSON, through the store's own client: the scripts still parse the
     * record (they never read the backoff), the store's Java code cannot decode it, as with a record written by an
     * incompatible version.
     */
    static void makeUnreadable(RedisJobStore store, JobRef ref) {
        Partition p = store.partition(ref.topic(), ref.id());
        String record = store.client().hget(p.jobs(), ref.id());
        int newline = record.indexOf('\n');
        String head = record.substring(0, newline);
        if (head.split("\\|", -1).length > 5) {
            throw new IllegalArgumentException("only a record without optional fields can be spoilt here: " + head);
        }
        store.client().hset(p.jobs(), ref.id(), head + "|{\"b\":\"{not json\"}" + record.substring(newline));
    }

    @Override
    public void close() {
        redis.close();
    }
}
