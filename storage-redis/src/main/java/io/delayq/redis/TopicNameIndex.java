package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.archive.TopicScope;
import io.delayq.redis.Scripts.Op;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.util.ArrayList;
import java.util.List;

/**
 * A SET of topic names with its index by name: a ZSET of the same names, every score 0, which Redis keeps in byte
 * order (of UTF-8: code point order), so that a page of the names, or of those starting with a prefix (a tenant's
 * {@code billing.*}), is one {@code ZRANGE … BYLEX … LIMIT}: O(log N + page), however many names the SET holds. Two
 * such: the topic registry ({@link RedisKeys#TOPICS}, {@link RedisKeys#TOPICS_BY_NAME}) and the topics with schedules
 * ({@link RedisKeys#SCHEDULE_TOPICS}, {@link RedisKeys#SCHEDULE_TOPICS_BY_NAME}). The SET stays what the rest reads
 * whole (SMEMBERS: the sweeps, the scheduler's due read).
 *
 * <p>Every write changes both in one script ({@code topics_add.lua}, {@code topics_remove.lua},
 * {@code topic_forget.lua}), the index under the SET's hash tag, so the two never disagree. A SET written before the
 * index existed (or by an instance of an earlier version during a rolling upgrade) is brought in step by
 * {@link #reconcile} at the store's start: {@code topics_index.lua} over every member and every entry, a chunk at a
 * time, each name tested and written in one step.
 */
final class TopicNameIndex {
    /** Names per SSCAN, per page of the index, and per script of {@link #reconcile}. */
    static final int CHUNK = 500;

    private final RedisCalls calls;
    private final String set;
    private final String index;

    private TopicNameIndex(RedisCalls calls, String set, String index) {
        this.calls = calls;
        this.set = set;
        this.index = index;
    }

    /** The topic registry, {@code dq:topics}. */
    static TopicNameIndex registry(RedisCalls calls) {
        return new TopicNameIndex(calls, RedisKeys.TOPICS, RedisKeys.TOPICS_BY_NAME);
    }

    /** The topics with recurring schedules, {@code dq:schedule-topics}. */
    static TopicNameIndex withSchedules(RedisCalls calls) {
        return new TopicNameIndex(calls, RedisKeys.SCHEDULE_TOPICS, RedisKeys.SCHEDULE_TOPICS_BY_NAME);
    }

    String set() {
        return set;
    }

    /** The names after {@code after} (exclusive; {@code null}: from the first) in name order, {@code limit} at most. */
    List<String> page(String after, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        String min = after == null ? "-" : "(" + after;
        return calls.call("list topics by name", () -> calls.client().zrangeByLex(index, min, "+", 0, limit));
    }

    /**
     * The names starting with {@code prefix}, after {@code after}, in name order, at most {@code limit}: the range from
     * {@code [prefix} (or {@code (after} when it comes later) to {@code (successor(prefix)} — the least string of the
     * prefix's length after every string starting with it ({@link TopicScope#successor}), so the range holds exactly
     * those strings and every character of the prefix means itself.
     */
    List<String> startingWith(String prefix, String after, int limit) {
        JobStore.requirePrefix(prefix);
        if (limit <= 0) {
            return List.of();
        }
        // topic names are ASCII (JobRules), where String order is code point order: the later of the two lower bounds
        String min = after != null && after.compareTo(prefix) >= 0 ? "(" + after : "[" + prefix;
        String end = TopicScope.successor(prefix);
        String max = end == null ? "+" : "(" + end;
        return calls.call("list topics by prefix", () -> calls.client().zrangeByLex(index, min, max, 0, limit));
    }

    /**
     * Adds names to the SET and the index ({@code topics_add.lua}); how many were new to the SET.
     *
     * @param tombstones a HASH whose fields of these names go too (registered anew), or {@code null}
     */
    long add(List<String> names, String tombstones) {
        List<String> keys = tombstones == null ? List.of(set, index) : List.of(set, index, tombstones);
        return (Long) calls.call("add topics to " + set, () -> calls.scripts().eval(Op.TOPICS_ADD, keys, names));
    }

    /** Takes a name out of the SET and the index ({@code topics_remove.lua}); whether it was in the SET. */
    boolean remove(String name) {
        return (Long) calls.call("take a topic out of " + set,
                () -> calls.scripts().eval(Op.TOPICS_REMOVE, List.of(set, index), List.of(name))) == 1L;
    }

    /**
     * Queues {@code topics_add.lua} in a pipeline (the registry's registration goes with the partition records' reads);
     * {@link Queued#confirm} reads its answer after the pipeline's sync.
     *
     * @param tombstones a HASH whose fields of these names go too (registered anew), or {@code null}
     */
    Queued addIn(AbstractPipeline pipeline, List<String> names, String tombstones) {
        List<String> keys = tombstones == null ? List.of(set, index) : List.of(set, index, tombstones);
        return new Queued(pipeline.evalsha(calls.scripts().sha(Op.TOPICS_ADD), keys, names), keys, names);
    }

    /** A queued {@code topics_add.lua}. */
    final class Queued {
        private final Response<Object> response;
        private final List<String> keys;
        private final List<String> names;

        private Queued(Response<Object> response, List<String> keys, List<String> names) {
            this.response = response;
            this.keys = keys;
            this.names = names;
        }

        /** Throws what Redis answered, but a node that lost its script cache gets the script and runs it now. */
        void confirm() {
            try {
                response.get();
            } catch (JedisException e) {
                if (!Scripts.isNoScript(e)) {
                    throw e;
                }
                calls.scripts().eval(Op.TOPICS_ADD, keys, names);
            }
        }
    }

    /**
     * The registry's part of forgetting a topic ({@code topic_forget.lua}): out of the SET and the index, its idle mark
     * gone, a tombstone written at {@code nowMs}.
     */
    void forget(String topic, long nowMs) {
        calls.call("forget topic " + topic, () -> calls.scripts().eval(Op.TOPIC_FORGET,
                List.of(set, index, RedisKeys.TOPICS_FORGOTTEN, RedisKeys.TOPICS_IDLE),
                List.of(topic, Long.toString(nowMs))));
    }

    /**
     * Brings the index in step with the SET: every member of the SET (SSCAN) gets its entry, every entry whose name is
     * not in the SET goes ({@code topics_index.lua}, {@value #CHUNK} names a script). O(N) in the names, in rounds of
     * {@value #CHUNK}: once at the store's start.
     *
     * @return entries added and entries removed
     */
    long[] reconcile() {
        long[] changed = new long[2];
        ScanParams chunk = new ScanParams().count(CHUNK);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            String from = cursor;
            ScanResult<String> scan = calls.call("scan " + set, () -> calls.client().sscan(set, from, chunk));
            inStep(scan.getResult(), changed);
            cursor = scan.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        String after = null;
        List<String> page;
        do {
            page = page(after, CHUNK);
            inStep(page, changed);
            after = page.isEmpty() ? null : page.get(page.size() - 1);
        } while (page.size() == CHUNK);
        return changed;
    }

    private void inStep(List<String> names, long[] changed) {
        if (names.isEmpty()) {
            return;
        }
        List<?> answer = (List<?>) calls.call("index topics of " + set,
                () -> calls.scripts().eval(Op.TOPICS_INDEX, List.of(set, index), new ArrayList<>(names)));
        changed[0] += (Long) answer.get(0);
        changed[1] += (Long) answer.get(1);
    }
}
