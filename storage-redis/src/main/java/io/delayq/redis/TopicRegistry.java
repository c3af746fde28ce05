package io.delayq.redis;

import io.delayq.core.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The topic registry, {@code dq:topics} (every topic with jobs or settings; with its index by name,
 * {@link TopicNameIndex}) and {@code dq:partitions} (each topic's {@link PartitionRecord}), kept so that its writes
 * never gate job writes. The registry is a few keys, on a cluster on one or two masters; a job write must not depend
 * on them when its own partition lives on another.
 *
 * <ul>
 *   <li>A topic this process writes for the first time is registered before its first job, in one pipeline
 *       ({@code topics_add.lua}, HSETNX, HGET: the recorded count wins), so that a crash in between never hides a
 *       topic that has jobs.</li>
 *   <li>Registry writes do not wait for replicas ({@code minReplicas}): a registration a failover loses is written
 *       again by the repair pass below, and the promoted master of the registry, which has no replica of its own until
 *       the old one is back, would otherwise refuse every new topic of the whole cluster (issue 26, finding 21).</li>
 *   <li>When the registry cannot be written (its master failed and is not replaced yet), the job write goes on with
 *       this instance's configured count, and the topic waits in memory to be registered by a background pass every
 *       {@value #FLUSH_EVERY_MS} ms; meanwhile no new topic waits for the registry again. Only a crash of this process
 *       during that outage (a second fault) leaves a topic with jobs out of the registry.</li>
 *   <li>Every {@value #REPAIR_EVERY_MS} ms the background pass writes every topic this process has registered again
 *       ({@code topics_add.lua} and an HMGET per {@value #CHUNK} topics; an HSETNX only for a record that is
 *       missing), so a registry that lost writes in a failover is whole again within seconds, rebuilt from what the
 *       instances know.</li>
 * </ul>
 */
final class TopicRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicRegistry.class);
    static final long FLUSH_EVERY_MS = 500;
    static final long REPAIR_EVERY_MS = 5_000;
    private static final int CHUNK = 500;

    private final RedisCalls calls;
    private final TopicNameIndex names;
    /** Topics this process has registered (or queued for registration) → the record it writes with. */
    private final Map<String, PartitionRecord> registered = new ConcurrentHashMap<>();
    /** Topics whose registration has not reached Redis yet. */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    /** Set by a failed registration, cleared by the next that succeeds: new topics then do not wait for the registry. */
    private volatile boolean failing;
    private final ScheduledExecutorService executor;
    private long nextRepairNanos;

    TopicRegistry(RedisCalls calls, TopicNameIndex names) {
        this.calls = calls;
        this.names = names;
        this.nextRepairNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPAIR_EVERY_MS);
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-redis-registry");
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::background, FLUSH_EVERY_MS, FLUSH_EVERY_MS, TimeUnit.MILLISECONDS);
    }

    /** Whether this process has registered the topic (its writes need no registry call). */
    boolean isRegistered(String topic) {
        return registered.containsKey(topic);
    }

    /**
     * Forgets that this process registered the topic (it was deleted: {@link TopicForgetting}), so that its next job
     * registers it again and the repair pass does not write it back.
     */
    void forget(String topic) {
        registered.remove(topic);
        pending.remove(topic);
    }

    /** Topics this process has registered, for tests of the store's memory bounds. */
    Set<String> registeredTopics() {
        return registered.keySet();
    }

    /**
     * Registers a topic about to get jobs or settings; returns its partition record: the one recorded in Redis (an
     * earlier writer's wins), else {@code ours}. When the registry cannot be written, {@code ours}, and the topic is
     * registered in the background.
     */
    PartitionRecord register(String topic, PartitionRecord ours) {
        PartitionRecord known = registered.get(topic);
        if (known != null) {
            return known;
        }
        if (!failing) {
            List<String> recorded = null;
            try {
                recorded = write(List.of(topic), List.of(ours));
            } catch (StoreException e) {
                fail(e);
            }
            if (recorded != null) {
                PartitionRecord record = recorded.get(0) == null ? ours : PartitionRecord.parse(topic, recorded.get(0));
                PartitionRecord first = registered.putIfAbsent(topic, record);
                return first != null ? first : record;
            }
        }
        PartitionRecord first = registered.putIfAbsent(topic, ours);
        pending.add(topic);
        return first != null ? first : ours;
    }

    /**
     * {@code topics_add.lua} (the SET, its index by name, the tombstones cleared), then HSETNX and HGET of each record,
     * in one pipeline: the records as recorded now.
     *
     * @throws StoreException UNAVAILABLE when a node did not answer its part
     */
    private List<String> write(List<String> topics, List<PartitionRecord> records) {
        return calls.call("register topic(s) " + topics.get(0) + (topics.size() > 1 ? " …" : ""), () -> {
            List<Response<String>> reads = new ArrayList<>(topics.size());
            List<Response<?>> writes = new ArrayList<>(topics.size());
            TopicNameIndex.Queued added;
            try (AbstractPipeline pipeline = calls.pipelined()) {
                added = names.addIn(pipeline, topics, RedisKeys.TOPICS_FORGOTTEN);
                for (int i = 0; i < topics.size(); i++) {
                    writes.add(pipeline.hsetnx(RedisKeys.PARTITIONS, topics.get(i), records.get(i).encode()));
                    reads.add(pipeline.hget(RedisKeys.PARTITIONS, topics.get(i)));
                }
                pipeline.sync();
            }
            added.confirm();
            writes.forEach(Response::get); // a write Redis refused fails the call
            return reads.stream().map(Response::get).toList();
        });
    }

    private void fail(StoreException e) {
        if (!failing) {
            failing = true;
            LOG.warn("the topic registry ({}, {}) cannot be written now ({}); jobs of new topics are written all the"
                    + " same, and their topics registered in the background as soon as it can be",
                    RedisKeys.TOPICS, RedisKeys.PARTITIONS, e.getMessage());
        }
    }

    /** The background pass: pending registrations every time, every registered topic again now and then. */
    private void background() {
        try {
            boolean repair = System.nanoTime() - nextRepairNanos >= 0;
            List<String> topics = new ArrayList<>(repair ? registered.keySet() : pending);
            if (topics.isEmpty()) {
                return;
            }
            for (int from = 0; from < topics.size(); from += CHUNK) {
                flush(topics.subList(from, Math.min(topics.size(), from + CHUNK)));
            }
            if (failing) {
                failing = false;
                LOG.info("the topic registry is written again; the topics of the outage are registered");
            }
            if (repair) {
                nextRepairNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPAIR_EVERY_MS);
            }
        } catch (StoreException e) {
            fail(e);
        } catch (RuntimeException e) {
            LOG.warn("registering topics failed, tried again in {} ms: {}", FLUSH_EVERY_MS, e.toString());
        }
    }

    /**
     * Writes a chunk of topics again: {@code topics_add.lua} (the SET and its index by name) and HMGET, then HSETNX
     * only of the records that are missing. A record that
     * differs from the one this process wrote with (another instance, configured otherwise, registered the topic while
     * the registry was out of reach) is logged: the jobs this process wrote meanwhile are in its partitions.
     */
    private void flush(List<String> all) {
        List<String> topics = withoutForgotten(all);
        if (topics.isEmpty()) {
            return;
        }
        String[] names = topics.toArray(String[]::new);
        List<String> recorded = calls.call("register topics", () -> {
            Response<List<String>> records;
            TopicNameIndex.Queued added;
            try (AbstractPipeline pipeline = calls.pipelined()) {
                added = this.names.addIn(pipeline, topics, null);
                records = pipeline.hmget(RedisKeys.PARTITIONS, names);
                pipeline.sync();
            }
            added.confirm();
            return records.get();
        });
        List<String> missing = new ArrayList<>();
        List<PartitionRecord> ours = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            PartitionRecord mine = registered.get(names[i]);
            if (recorded.get(i) == null) {
                missing.add(names[i]);
                ours.add(mine);
            } else if (pending.contains(names[i]) && !Objects.equals(recorded.get(i), mine.encode())) {
                LOG.error("topic {} is recorded with partitions '{}' in {}, but this instance wrote its jobs with '{}'"
                        + " while the registry was out of reach; configure every instance with the same partitions"
                        + " for a topic", names[i], recorded.get(i), RedisKeys.PARTITIONS, mine.encode());
            }
        }
        if (!missing.isEmpty()) {
            write(missing, ours);
        }
        topics.forEach(pending::remove);
    }

    /**
     * The topics not deleted since this process registered them: a deleted topic (its tombstone in
     * {@link RedisKeys#TOPICS_FORGOTTEN}) is dropped from what this process registers, so that the repair does not
     * bring it back; its next job registers it anew (issue 26, finding 12). Topics with pending registrations are
     * kept: their jobs were written after the tombstone could be.
     */
    private List<String> withoutForgotten(List<String> topics) {
        String[] names = topics.toArray(String[]::new);
        List<String> tombstones = calls.call("read topic tombstones",
                () -> calls.client().hmget(RedisKeys.TOPICS_FORGOTTEN, names));
        List<String> kept = new ArrayList<>(topics.size());
        for (int i = 0; i < names.length; i++) {
            if (tombstones.get(i) == null || pending.contains(names[i])) {
                kept.add(names[i]);
            } else {
                registered.remove(names[i]);
            }
        }
        return kept;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
