package io.delayq.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.redis.RedisKeys.Partition;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

import java.util.LinkedHashMap;
import java.util.Map;

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

    JsonNode meta(Partition p, String id) throws Exception {
        String record = record(p, id);
        return mapper.readTree(record.substring(0, record.indexOf('\n')));
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

    @Override
    public void close() {
        redis.close();
    }
}
