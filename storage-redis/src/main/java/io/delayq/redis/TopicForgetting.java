package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;
import io.delayq.core.TopicStats;
import redis.clients.jedis.UnifiedJedis;

import java.util.List;
import java.util.Map;

/**
 * Forgets topics (issue 26, finding 12): an operator's delete of a topic without scheduled or leased jobs, and the
 * forgetting of a topic idle (no such jobs, no settings) for a week. A forgotten topic leaves {@link RedisKeys#TOPICS}
 * (with its index by name, in one script: {@link TopicNameIndex#forget}) and {@link RedisKeys#SETTINGS}, and the
 * record of the origins its jobs used ({@link RedisKeys#topicOrigins}) goes with it; its partition record stays (a
 * few bytes; a topic used again keeps its partitions).
 *
 * <p>A deletion leaves a tombstone in {@link RedisKeys#TOPICS_FORGOTTEN} (topic → when, by Redis's clock), which the
 * {@link TopicRegistry}'s repair pass reads: it drops the topic from what it writes again, so that another instance does
 * not bring it back; an enqueue into the topic afterwards registers it anew and removes the tombstone. Tombstones older
 * than {@value #TOMBSTONE_MS} ms (every instance's repair has seen them) are trimmed at the next deletion. The jobs
 * check and the deletion are separate commands (the keys live on different nodes of a cluster): the check is made again
 * after the deletion and the topic restored when a job arrived meanwhile; an enqueue by an instance that knew the topic
 * and whose job lands after that second check leaves the topic unlisted until its next registration (its jobs are still
 * delivered: the enqueue wakes the engine up).
 */
final class TopicForgetting {
    static final long TOMBSTONE_MS = 3_600_000;

    private final RedisCalls calls;
    private final TopicRegistry registry;
    private final TopicNameIndex names;
    private final JobStore store;

    TopicForgetting(RedisCalls calls, TopicRegistry registry, TopicNameIndex names, JobStore store) {
        this.calls = calls;
        this.registry = registry;
        this.names = names;
        this.store = store;
    }

    boolean delete(String topic) {
        if (busy(topic)) {
            return false;
        }
        UnifiedJedis redis = calls.client();
        long now = store.now();
        String settings = calls.call("read settings", () -> redis.hget(RedisKeys.SETTINGS, topic));
        names.forget(topic, now); // topic_forget.lua: tombstone, the SET and its index, the idle mark
        calls.call("forget topic " + topic, () -> {
            redis.hdel(RedisKeys.SETTINGS, topic);
            redis.del(RedisKeys.topicOrigins(topic)); // the origins its jobs used (not restored below: they come back)
            return null;
        });
        registry.forget(topic);
        if (busy(topic)) { // a job arrived between the check and the deletion: the topic is listed again
            calls.call("restore topic " + topic, () -> {
                names.add(List.of(topic), RedisKeys.TOPICS_FORGOTTEN); // the SET and its index, the tombstone gone
                if (settings != null) {
                    redis.hset(RedisKeys.SETTINGS, topic, settings);
                }
                return null;
            });
            return false;
        }
        trimTombstones(now);
        return true;
    }

    boolean forgetIfIdle(String topic, long idleMs) {
        UnifiedJedis redis = calls.client();
        boolean hasSettings = calls.call("read settings", () -> redis.hexists(RedisKeys.SETTINGS, topic));
        if (hasSettings || busy(topic)) {
            calls.call("unmark idle topic", () -> redis.hdel(RedisKeys.TOPICS_IDLE, topic));
            return false;
        }
        long now = store.now();
        String since = calls.call("read idle mark", () -> redis.hget(RedisKeys.TOPICS_IDLE, topic));
        if (since == null) {
            calls.call("mark idle topic", () -> redis.hsetnx(RedisKeys.TOPICS_IDLE, topic, Long.toString(now)));
            return false;
        }
        return now - Long.parseLong(since) >= idleMs && delete(topic);
    }

    private boolean busy(String topic) {
        TopicStats stats = store.stats(topic);
        return stats.scheduled() > 0 || stats.leased() > 0;
    }

    private void trimTombstones(long now) {
        UnifiedJedis redis = calls.client();
        Map<String, String> all = calls.call("read topic tombstones", () -> redis.hgetAll(RedisKeys.TOPICS_FORGOTTEN));
        String[] old = all.entrySet().stream().filter(e -> now - parse(e.getValue()) > TOMBSTONE_MS)
                .map(Map.Entry::getKey).toArray(String[]::new);
        if (old.length > 0) {
            calls.call("trim topic tombstones", () -> redis.hdel(RedisKeys.TOPICS_FORGOTTEN, old));
        }
    }

    private static long parse(String ms) {
        try {
            return Long.parseLong(ms);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The settings of several topics in one HMGET. */
    static Map<String, TopicSettings> settings(RedisCalls calls, java.util.Collection<String> topics,
                                               java.util.function.BiFunction<String, String, TopicSettings> parse) {
        java.util.List<String> names = java.util.List.copyOf(topics);
        Map<String, TopicSettings> out = new java.util.LinkedHashMap<>();
        if (names.isEmpty()) {
            return out;
        }
        java.util.List<String> json = calls.call("read settings", () -> calls.client().hmget(RedisKeys.SETTINGS,
                names.toArray(String[]::new)));
        for (int i = 0; i < names.size(); i++) {
            out.put(names.get(i), json.get(i) == null ? TopicSettings.empty() : parse.apply(names.get(i), json.get(i)));
        }
        return out;
    }
}
