package io.delayq.redis;

import io.delayq.core.JobRef;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.redis.Scripts.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.ZAddParams;
import redis.clients.jedis.resps.ScanResult;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The circuits of callback origins in Redis: one HASH, {@link RedisKeys#CIRCUITS}, origin → record
 * ({@link CircuitRecord}), shared by every instance on the store. Each write is one {@code breaker_*} script, so it
 * reads, decides and writes atomically by Redis's clock; each read is one command or two. Three indexes under the same
 * hash tag keep the records bounded and cheap to read (issue 26, finding 5): the origins in order (paged listing), each
 * origin's last change (expiry of idle closed circuits) and the notable ones (open or holding jobs, the snapshot). The writes do not wait for replicas ({@code minReplicas}): a circuit is soft state,
 * and one lost in a failover only means its failures are counted again.
 *
 * <p>The origins each topic's jobs use are a ZSET per topic, {@link RedisKeys#topicOrigins}, under the topic's own
 * hash tag: written by {@code topic_origins.lua}, one call per topic in one pipeline; read in one pipeline.
 */
final class RedisCircuitBreakers implements CircuitBreakers {
    private static final Logger LOG = LoggerFactory.getLogger(RedisCircuitBreakers.class);
    private static final List<String> KEYS = List.of(RedisKeys.CIRCUITS, RedisKeys.CIRCUIT_ORIGINS,
            RedisKeys.CIRCUIT_CHANGES, RedisKeys.CIRCUITS_NOTABLE);

    private static final int INDEX_PAGE = 1_000;

    private final RedisCalls calls;
    private volatile boolean indexed;

    RedisCircuitBreakers(RedisCalls calls) {
        this.calls = calls;
    }

    @Override
    public OriginCircuit recordFailure(String origin, BreakerPolicy policy, int maxOrigins) {
        Objects.requireNonNull(policy, "policy");
        String record = (String) eval("record a failure of " + origin, Op.BREAKER_FAILURE, origin,
                Integer.toString(policy.failureThreshold()), Long.toString(policy.probeIntervalMs()),
                Long.toString(policy.maxProbeIntervalMs()), Integer.toString(maxOrigins));
        return record == null ? null : CircuitRecord.decode(origin, record);
    }

    @Override
    public OriginCircuit recordSuccess(String origin) {
        return CircuitRecord.decode(origin, (String) eval("record a success of " + origin, Op.BREAKER_SUCCESS, origin));
    }

    @Override
    public boolean claimProbe(String origin) {
        return (Long) eval("claim a probe of " + origin, Op.BREAKER_PROBE, origin) == 1;
    }

    @Override
    public void updateHeld(String origin, Collection<JobRef> held, Collection<JobRef> released) {
        Objects.requireNonNull(origin, "origin");
        if (held.isEmpty() && released.isEmpty()) {
            return;
        }
        List<String> args = new ArrayList<>(2 + held.size() + released.size());
        args.add(origin);
        args.add(Integer.toString(held.size()));
        held.forEach(ref -> args.add(JobRefs.member(ref)));
        released.forEach(ref -> args.add(JobRefs.member(ref)));
        calls.call("count the held jobs of " + origin,
                () -> calls.scripts().eval(Op.BREAKER_HELD, heldKeys(origin), args));
    }

    @Override
    public List<JobRef> heldJobs(String origin, int limit) {
        Objects.requireNonNull(origin, "origin");
        if (limit <= 0) {
            return List.of();
        }
        List<String> members = calls.call("read the held jobs of " + origin,
                () -> calls.client().zrange(RedisKeys.held(origin), 0, limit - 1));
        List<JobRef> out = new ArrayList<>(members.size());
        for (String member : members) {
            try {
                out.add(JobRefs.parse(member));
            } catch (IllegalArgumentException damaged) {
                LOG.warn("A member of {} cannot be read ({}); left out", RedisKeys.held(origin), damaged.getMessage());
            }
        }
        return out;
    }

    /** One HGETALL of the counts {@code breaker_held} keeps beside the held set; its field {@code ""} is no topic. */
    @Override
    public Map<String, Long> heldByTopic(String origin) {
        Objects.requireNonNull(origin, "origin");
        Map<String, String> fields = calls.call("read the held jobs of " + origin + " by topic",
                () -> calls.client().hgetAll(RedisKeys.heldByTopic(origin)));
        Map<String, Long> out = new TreeMap<>();
        fields.forEach((topic, count) -> {
            if (!topic.isEmpty()) {
                try {
                    long n = Long.parseLong(count);
                    if (n > 0) {
                        out.put(topic, n);
                    }
                } catch (NumberFormatException damaged) {
                    LOG.warn("The count of {} in {} cannot be read ({}); left out", topic,
                            RedisKeys.heldByTopic(origin), count);
                }
            }
        });
        return out;
    }

    @Override
    public OriginCircuit circuit(String origin) {
        Objects.requireNonNull(origin, "origin");
        return read(origin, calls.call("read the circuit of " + origin,
                () -> calls.client().hget(RedisKeys.CIRCUITS, origin)));
    }

    @Override
    public List<OriginCircuit> circuits(String after, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        indexMissing();
        String from = after == null ? "-" : "(" + after;
        return records("list the circuits", calls.call("list the circuits",
                () -> calls.client().zrangeByLex(RedisKeys.CIRCUIT_ORIGINS, from, "+", 0, limit)));
    }

    @Override
    public List<OriginCircuit> notableCircuits(int limit) {
        if (limit <= 0) {
            return List.of();
        }
        indexOnce();
        return records("read the open circuits", calls.call("read the open circuits",
                () -> calls.client().zrange(RedisKeys.CIRCUITS_NOTABLE, 0, limit - 1)));
    }

    @Override
    public long count() {
        return calls.call("count the circuits", () -> calls.client().hlen(RedisKeys.CIRCUITS));
    }

    @Override
    public int expireIdle(long idleMs, int max) {
        indexMissing();
        Object forgotten = calls.call("forget idle circuits", () -> calls.scripts().eval(Op.BREAKER_EXPIRE, KEYS,
                List.of(Long.toString(idleMs), Integer.toString(max), RedisKeys.HELD_PREFIX,
                        RedisKeys.HELD_BY_TOPIC_PREFIX)));
        return ((Long) forgotten).intValue();
    }

    /** One {@code topic_origins.lua} call per topic, all in one pipeline (one round trip per node on a cluster). */
    @Override
    public void recordOrigins(Map<String, Set<String>> origins, long nowMs) {
        List<List<String>> keys = new ArrayList<>(origins.size());
        List<List<String>> args = new ArrayList<>(origins.size());
        origins.forEach((topic, used) -> {
            Objects.requireNonNull(topic, "topic");
            if (!used.isEmpty()) {
                keys.add(List.of(RedisKeys.topicOrigins(topic)));
                List<String> a = new ArrayList<>(3 + used.size());
                a.add(Long.toString(nowMs));
                a.add(Integer.toString(MAX_ORIGINS_PER_TOPIC));
                a.add(Long.toString(ORIGINS_RETENTION_MS));
                used.forEach(origin -> a.add(Objects.requireNonNull(origin, "origin")));
                args.add(a);
            }
        });
        if (keys.isEmpty()) {
            return;
        }
        calls.call("record the origins of " + keys.size() + " topics",
                () -> calls.evalAll(Op.TOPIC_ORIGINS, keys, args));
    }

    /** One {@code ZRANGEBYSCORE} per topic from the retention's start, in one pipeline. */
    @Override
    public Map<String, Set<String>> originsOf(Collection<String> topics, long nowMs) {
        Set<String> names = new LinkedHashSet<>(topics);
        if (names.isEmpty()) {
            return Map.of();
        }
        String from = Long.toString(nowMs - ORIGINS_RETENTION_MS);
        Map<String, Response<List<String>>> reads = new TreeMap<>();
        calls.call("read the origins of " + names.size() + " topics", () -> {
            try (AbstractPipeline pipeline = calls.pipelined()) {
                for (String topic : names) {
                    reads.put(topic, pipeline.zrangeByScore(RedisKeys.topicOrigins(topic), from, "+inf"));
                }
                pipeline.sync();
            }
            reads.values().forEach(Response::get); // a node that failed its part fails the call
            return null;
        });
        Map<String, Set<String>> out = new TreeMap<>();
        reads.forEach((topic, read) -> {
            if (!read.get().isEmpty()) {
                out.put(topic, new TreeSet<>(read.get()));
            }
        });
        return out;
    }

    /** The records of these origins, in their order; an origin whose record is gone meanwhile is left out. */
    private List<OriginCircuit> records(String operation, List<String> origins) {
        if (origins.isEmpty()) {
            return List.of();
        }
        List<String> records = calls.call(operation,
                () -> calls.client().hmget(RedisKeys.CIRCUITS, origins.toArray(String[]::new)));
        List<OriginCircuit> out = new ArrayList<>(origins.size());
        for (int i = 0; i < origins.size(); i++) {
            if (records.get(i) != null) {
                out.add(read(origins.get(i), records.get(i)));
            }
        }
        return out;
    }

    /**
     * Circuits written before the indexes existed (an upgrade), or by hand, are in no index, so they would be neither
     * listed nor forgotten: when the HASH holds more origins than the origin index (two O(1) commands, at each listing
     * and sweep; once per process for the snapshot's reads), every origin is added to the indexes (its last change
     * taken as now, so a closed one is forgotten an idle period later). The upgrade's one O(origins) read, in pages of
     * {@value #INDEX_PAGE}.
     */
    private void indexOnce() {
        if (!indexed) {
            indexMissing();
        }
    }

    private void indexMissing() {
        long records = count();
        long listed = calls.call("count the circuit index", () -> calls.client().zcard(RedisKeys.CIRCUIT_ORIGINS));
        if (records > listed) {
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                String at = cursor;
                ScanResult<Map.Entry<String, String>> page = calls.call("index the circuits",
                        () -> calls.client().hscan(RedisKeys.CIRCUITS, at, new ScanParams().count(INDEX_PAGE)));
                long now = System.currentTimeMillis();
                for (Map.Entry<String, String> e : page.getResult()) {
                    OriginCircuit c = read(e.getKey(), e.getValue());
                    calls.call("index the circuits", () -> {
                        calls.client().zadd(RedisKeys.CIRCUIT_ORIGINS, 0, c.origin());
                        calls.client().zadd(RedisKeys.CIRCUIT_CHANGES, now, c.origin(), ZAddParams.zAddParams().nx());
                        if (c.isOpen() || c.heldJobs() > 0) {
                            calls.client().zadd(RedisKeys.CIRCUITS_NOTABLE, 0, c.origin());
                        }
                        return null;
                    });
                }
                cursor = page.getCursor();
            } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
            LOG.info("Indexed {} circuits written before the circuit indexes existed", records - listed);
        }
        indexed = true;
    }

    private static List<String> heldKeys(String origin) {
        List<String> keys = new ArrayList<>(KEYS);
        keys.add(RedisKeys.held(origin));
        keys.add(RedisKeys.heldByTopic(origin));
        return keys;
    }

    private Object eval(String operation, Op op, String origin, String... more) {
        Objects.requireNonNull(origin, "origin");
        List<String> args = new ArrayList<>(1 + more.length);
        args.add(origin);
        args.addAll(List.of(more));
        return calls.call(operation, () -> calls.scripts().eval(op, KEYS, args));
    }

    /**
     * A record this code cannot read is taken as closed, as the scripts take it (they start it afresh at the next
     * write): a damaged circuit must not stop the deliveries to its origin, nor hide the other origins.
     */
    private static OriginCircuit read(String origin, String record) {
        try {
            return CircuitRecord.decode(origin, record);
        } catch (IllegalArgumentException e) {
            LOG.warn("The circuit of {} in {} cannot be read ({}); it counts as closed and is started"
                    + " afresh by the next failure or success recorded for it", origin, RedisKeys.CIRCUITS,
                    e.getMessage());
            return OriginCircuit.closed(origin);
        }
    }
}
