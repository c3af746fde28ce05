package io.delayq.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobRules;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.delayq.redis.Scripts.Op;
import redis.clients.jedis.UnifiedJedis;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Topic settings in {@code dq:settings} (topic → JSON): read, stored, updated by compare-and-set, and cached for the
 * hot path ({@link #cached}) for at most {@code settingsCacheTtl}; only topics this instance wrote or already cached
 * are kept, so reads of made-up names add nothing to memory.
 */
final class TopicSettingsStore {
    /** Compare-and-set rounds of one settings update before it gives up (each lost round means another update won). */
    private static final int UPDATE_ROUNDS = 50;

    private final RedisCalls calls;
    private final ReplicatedWrites writes;
    private final TopicPartitions topics;
    private final ObjectMapper mapper;
    private final long ttlNanos;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    private record Cached(TopicSettings settings, long readAtNanos) {
    }

    TopicSettingsStore(RedisCalls calls, ReplicatedWrites writes, TopicPartitions topics, RecordCodec codec,
                       RedisStoreOptions options) {
        this.calls = calls;
        this.writes = writes;
        this.topics = topics;
        this.mapper = codec.mapper();
        this.ttlNanos = options.settingsCacheTtl().toNanos();
    }

    /** Topics whose settings this instance caches. */
    Set<String> cachedTopics() {
        return cache.keySet();
    }

    TopicSettings settings(String topic) {
        String json = read("settings", topic);
        TopicSettings settings = json == null ? TopicSettings.empty() : parse(topic, json);
        // refreshes a topic the store already caches; a read of any other name adds nothing to memory
        cache.computeIfPresent(topic, (t, old) -> new Cached(settings, System.nanoTime()));
        return settings;
    }

    void put(String topic, TopicSettings settings) {
        JobRules.checkTopic(topic);
        String json = encode(topic, settings);
        topics.partitionsForWrite(topic);
        UnifiedJedis redis = calls.client();
        writes.writeOne("put settings", RedisKeys.SETTINGS, pipe -> pipe.hset(RedisKeys.SETTINGS, topic, json),
                () -> redis.hset(RedisKeys.SETTINGS, topic, json));
        cache.put(topic, new Cached(settings, System.nanoTime()));
    }

    /**
     * Compare-and-set on the topic's settings JSON ({@code settings.lua}): written only if still what {@code change}
     * was given, else read again and {@code change} applied anew.
     */
    TopicSettings update(String topic, UnaryOperator<TopicSettings> change) {
        JobRules.checkTopic(topic);
        topics.partitionsForWrite(topic);
        for (int round = 0; round < UPDATE_ROUNDS; round++) {
            String read = read("read settings", topic);
            TopicSettings next = change.apply(read == null ? TopicSettings.empty() : parse(topic, read));
            String json = encode(topic, next);
            Object written = writes.evalOneAcknowledged("update settings", Op.SETTINGS, List.of(RedisKeys.SETTINGS),
                    List.of(topic, read == null ? "0" : "1", read == null ? "" : read, json));
            if ((Long) written == 1) {
                TopicSettings stored = parse(topic, json);
                cache.put(topic, new Cached(stored, System.nanoTime()));
                return stored;
            }
        }
        throw new StoreException(StoreStatus.CONFLICT, "the settings of topic " + topic + " kept changing under this"
                + " update (" + UPDATE_ROUNDS + " concurrent updates won); send it again");
    }

    /** Settings for the hot path, at most {@code settingsCacheTtl} old. */
    TopicSettings cached(String topic) {
        Cached cached = cache.get(topic);
        if (cached != null && System.nanoTime() - cached.readAtNanos() < ttlNanos) {
            return cached.settings();
        }
        return settings(topic);
    }

    private String read(String operation, String topic) {
        UnifiedJedis redis = calls.client();
        return calls.call(operation, () -> redis.hget(RedisKeys.SETTINGS, topic));
    }

    private String encode(String topic, TopicSettings settings) {
        try {
            return mapper.writeValueAsString(settings);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode the settings of topic " + topic + ": " + e.getOriginalMessage(), e);
        }
    }

    TopicSettings parse(String topic, String json) {
        try {
            return mapper.readValue(json, TopicSettings.class);
        } catch (JsonProcessingException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the stored settings of topic " + topic
                    + " are not readable (" + e.getOriginalMessage() + "); store them again", e);
        }
    }
}
