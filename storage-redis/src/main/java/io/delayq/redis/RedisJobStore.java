package io.delayq.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.delayq.core.Delivery;
import io.delayq.core.EnqueueCoalescer;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.OutboxEntry;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreException;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.delayq.core.TopicStats;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.history.TopicMinute;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.Tuple;

import java.net.URI;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link JobStore} on Redis: one Lua script per transition, every key of a topic partition under one hash tag
 * (see storage-redis/README.md for the key table). The same code runs on a standalone server, behind Sentinel, or on a
 * cluster, since it only uses {@link UnifiedJedis}.
 */
public final class RedisJobStore implements JobStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisJobStore.class);
    /** Jobs per enqueue script call; bigger batches are split so one call never blocks Redis for long. */
    static final int ENQUEUE_CHUNK = 500;
    private static final int MAX_RESERVE = 9_999;
    /** How soon a reserve that left out a partition whose node failed asks its caller to come back. */
    static final long RETRY_FAILED_PARTITION_MS = 1_000;
    /** Compare-and-set rounds of one settings update before it gives up (each lost round means another update won). */
    private static final int SETTINGS_UPDATE_ROUNDS = 50;
    private static final String NOW_SCRIPT =
            "local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

    private final UnifiedJedis redis;
    private final boolean ownsClient;
    private final RedisStoreOptions options;
    private final Scripts scripts;
    private final RecordCodec codec = new RecordCodec();
    private final Notifications notifications;
    private final Map<String, Partition[]> partitions = new ConcurrentHashMap<>();
    private final Set<String> knownTopics = ConcurrentHashMap.newKeySet();
    private final Map<String, CachedSettings> settingsCache = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final EnqueueCoalescer coalescer = new EnqueueCoalescer("Redis", this::enqueue);
    private final String retentionMs;
    private final String historySize;
    private final ScheduledExecutorService trimmer;
    /** Where the next outbox read starts taking turns among the partitions, so that every partition gets its turn. */
    private final AtomicInteger outboxTurn = new AtomicInteger();
    private final RedisOperatorViews views = new RedisOperatorViews(this);
    private final RedisCircuitBreakers breakers = new RedisCircuitBreakers(this);
    /** Where the next reserve over several partitions starts breaking ties, so no partition always wins them. */
    private final AtomicInteger reserveTurn = new AtomicInteger();
    private final ClusterNodes nodes;
    private Runnable onClose = () -> { };

    private record CachedSettings(TopicSettings settings, long readAtNanos) {
    }

    /**
     * Wraps a client. The store loads its scripts now (so a server that cannot run them fails here, not on the first
     * job).
     *
     * @param ownsClient whether {@link #close()} closes the client
     */
    public RedisJobStore(UnifiedJedis redis, RedisStoreOptions options, boolean ownsClient) {
        this.redis = redis;
        this.ownsClient = ownsClient;
        this.options = options;
        this.scripts = new Scripts(redis);
        this.nodes = new ClusterNodes(redis);
        this.notifications = new Notifications(redis, nodes, codec::jobFromJson);
        this.retentionMs = Long.toString(options.finishedRetention().toMillis());
        this.historySize = Integer.toString(options.historySize());
        call("load scripts", () -> {
            scripts.loadAll(RedisKeys.TOPICS);
            return null;
        });
        warnIfRedisMayEvict();
        this.trimmer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-redis-trim");
            t.setDaemon(true);
            return t;
        });
        long every = options.trimInterval().toMillis();
        trimmer.scheduleWithFixedDelay(this::trimFinished, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Drops finished records past the retention in every partition of every topic, one pipelined round trip (per
     * node) a pass. The transitions trim their own partition as they go; this reaches partitions nothing touches.
     * A failed pass is retried at the next one: nothing depends on it but memory and the ids it frees.
     */
    void trimFinished() {
        try {
            List<Partition> ps = allPartitions();
            if (ps.isEmpty()) {
                return;
            }
            List<String> args = List.of(retentionMs, "500");
            evalAll(Op.TRIM, ps.stream().map(p -> List.of(p.jobs(), p.finished())).toList(),
                    java.util.Collections.nCopies(ps.size(), args));
        } catch (RuntimeException e) {
            LOG.debug("trim pass failed, retried at the next one: {}", e.toString());
        }
    }

    /**
     * A Redis that evicts keys under memory pressure can drop scheduled jobs; delayq needs {@code noeviction} (then a
     * full Redis refuses new jobs with an error instead). Managed services may forbid CONFIG: then nothing is said.
     */
    private void warnIfRedisMayEvict() {
        try {
            Map<String, String> policy = redis.configGet("maxmemory-policy");
            String value = policy.get("maxmemory-policy");
            if (value != null && !value.equals("noeviction")) {
                LOG.warn("Redis runs with maxmemory-policy {}: under memory pressure it may evict delayq's keys and lose"
                        + " scheduled jobs. Set maxmemory-policy noeviction (a full Redis then refuses new jobs"
                        + " instead).", value);
            }
        } catch (RuntimeException e) {
            LOG.debug("could not read Redis's maxmemory-policy (CONFIG may be disabled): {}", e.toString());
        }
    }

    /** Connects to {@code redis://host:port[/db]} or {@code rediss://…} with default options. */
    public static RedisJobStore connect(String uri) {
        return connect(uri, RedisStoreOptions.defaults());
    }

    public static RedisJobStore connect(String uri, RedisStoreOptions options) {
        return new RedisJobStore(standaloneClient(uri, options.poolSize()), options, true);
    }

    /** A pooled client for one server, from a {@code redis://} or {@code rediss://} URI. */
    static UnifiedJedis standaloneClient(String uri, int poolSize) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(poolSize);
        pool.setMaxIdle(poolSize);
        pool.setMinIdle(1);
        // fail fast when the pool is exhausted or Redis is gone rather than queue forever
        pool.setMaxWait(java.time.Duration.ofSeconds(5));
        return RedisClient.builder().fromURI(URI.create(uri)).poolConfig(pool).build();
    }

    /** Runs {@code action} when the store closes (e.g. stopping an embedded server). */
    void onClose(Runnable action) {
        this.onClose = action;
    }

    UnifiedJedis client() {
        return redis;
    }

    /** A pipeline of the client (see {@link ClusterNodes#pipelined}). */
    AbstractPipeline pipelined() {
        return nodes.pipelined();
    }

    RedisStoreOptions options() {
        return options;
    }

    Scripts scripts() {
        return scripts;
    }

    /** Topics this store keeps anything of in memory (partition counts, settings), for tests of its bounds. */
    Set<String> cachedTopics() {
        Set<String> topics = new HashSet<>(partitions.keySet());
        topics.addAll(settingsCache.keySet());
        return topics;
    }

    // ---------------------------------------------------------------- enqueue

    /** One job; concurrent callers share script calls (see {@link EnqueueCoalescer}). */
    @Override
    public EnqueueResult enqueue(NewJob job) {
        return coalescer.submit(job);
    }

    @Override
    public List<EnqueueResult> enqueue(List<NewJob> jobs) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        // group by partition, keeping each job's position for the answer
        Map<Partition, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            JobRules.checkTopic(job.topic());
            JobRules.checkId(job.id());
            groups.computeIfAbsent(pick(partitionsForWrite(job.topic()), job.id()), k -> new ArrayList<>()).add(i);
        }
        registerTopics(jobs);
        List<EnqueueCall> calls = new ArrayList<>();
        groups.forEach((p, indexes) -> {
            for (int from = 0; from < indexes.size(); from += ENQUEUE_CHUNK) {
                calls.add(new EnqueueCall(p, indexes.subList(from, Math.min(indexes.size(), from + ENQUEUE_CHUNK)), jobs));
            }
        });
        EnqueueResult[] results = new EnqueueResult[jobs.size()];
        List<Object> answers = evalAcknowledged("enqueue", Op.ENQUEUE, calls.stream().map(c -> c.keys).toList(),
                calls.stream().map(c -> c.args).toList());
        for (int c = 0; c < calls.size(); c++) {
            EnqueueCall ec = calls.get(c);
            List<?> answer = (List<?>) answers.get(c);
            for (int j = 0; j < ec.indexes.size(); j++) {
                int index = ec.indexes.get(j);
                results[index] = enqueueResult(jobs.get(index), answer, j);
            }
        }
        return Arrays.asList(results);
    }

    private final class EnqueueCall {
        final List<Integer> indexes;
        final List<String> keys;
        final List<String> args;

        EnqueueCall(Partition p, List<Integer> indexes, List<NewJob> jobs) {
            this.indexes = indexes;
            this.keys = List.of(p.jobs(), p.schedPush(), p.schedPull());
            this.args = new ArrayList<>(1 + indexes.size() * 5);
            args.add(p.topic());
            for (int index : indexes) {
                NewJob job = jobs.get(index);
                args.add(job.id());
                args.add(RecordCodec.newJobHeadStart(job));
                args.add(job.delayMs() != null ? "d" + job.delayMs() : "a" + job.runAtMs());
                args.add(codec.newJobHeadEnd(job));
                args.add(job.payload());
            }
        }
    }

    /** Reads the enqueue script's answer for job {@code j} of a call: {now, code, runAt or record, …}. */
    private EnqueueResult enqueueResult(NewJob job, List<?> answer, int j) {
        long code = (Long) answer.get(1 + 2 * j);
        if (code == ScriptCodes.OK) {
            long runAt = (Long) answer.get(2 + 2 * j);
            return new EnqueueResult(StoreStatus.OK, true, codec.created(job, runAt, (Long) answer.get(0)));
        }
        Job existing = codec.decode(job.topic(), job.id(), (String) answer.get(2 + 2 * j));
        return new EnqueueResult(ScriptCodes.status(code), false, existing);
    }

    private void registerTopics(List<NewJob> jobs) {
        for (NewJob job : jobs) {
            registerTopic(job.topic());
        }
    }

    /** Before the topic's jobs or settings are written, so a crash in between never hides a topic that has them. */
    private void registerTopic(String topic) {
        if (!knownTopics.contains(topic)) {
            writeOne("register topic", RedisKeys.TOPICS, pipe -> pipe.sadd(RedisKeys.TOPICS, topic),
                    () -> redis.sadd(RedisKeys.TOPICS, topic));
            knownTopics.add(topic);
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<Job> find(JobRef ref) {
        Partition p = partition(ref.topic(), ref.id());
        String record = call("find", () -> redis.hget(p.jobs(), ref.id()));
        return record == null ? Optional.empty() : Optional.of(codec.decode(ref.topic(), ref.id(), record));
    }

    @Override
    public long nextLeaseDeadline(String topic) {
        long next = -1;
        for (Partition p : partitions(topic)) {
            next = earlier(next, firstScore(p.leased()));
        }
        return next;
    }

    @Override
    public long nextDueAt(String topic, Delivery lane) {
        long next = -1;
        for (Partition p : partitions(topic)) {
            next = earlier(next, firstScore(p.scheduled(lane)));
        }
        return next;
    }

    @Override
    public Set<String> topics() {
        return call("topics", () -> new HashSet<>(redis.smembers(RedisKeys.TOPICS)));
    }

    @Override
    public TopicStats stats(String topic) {
        long scheduled = 0;
        long leased = 0;
        long dead = 0;
        long succeeded = 0;
        long next = -1;
        for (Partition p : partitions(topic)) {
            scheduled += call("stats", () -> redis.zcard(p.schedPush()) + redis.zcard(p.schedPull()));
            leased += call("stats", () -> redis.zcard(p.leased()));
            List<String> counters = call("stats", () -> redis.hmget(p.stats(), "dead", "succeeded"));
            dead += counters.get(0) == null ? 0 : Long.parseLong(counters.get(0));
            succeeded += counters.get(1) == null ? 0 : Long.parseLong(counters.get(1));
            next = earlier(next, firstScore(p.schedPush()));
            next = earlier(next, firstScore(p.schedPull()));
        }
        return new TopicStats(topic, scheduled, leased, dead, succeeded, next);
    }

    @Override
    public TopicSettings settings(String topic) {
        String json = call("settings", () -> redis.hget(RedisKeys.SETTINGS, topic));
        TopicSettings settings = json == null ? TopicSettings.empty() : parseSettings(topic, json);
        // refreshes a topic the store already caches; a read of any other name adds nothing to memory
        settingsCache.computeIfPresent(topic, (t, old) -> new CachedSettings(settings, System.nanoTime()));
        return settings;
    }

    @Override
    public void putSettings(String topic, TopicSettings settings) {
        JobRules.checkTopic(topic);
        String json = encodeSettings(topic, settings);
        registerTopic(topic);
        partitionsForWrite(topic);
        writeOne("put settings", RedisKeys.SETTINGS, pipe -> pipe.hset(RedisKeys.SETTINGS, topic, json),
                () -> redis.hset(RedisKeys.SETTINGS, topic, json));
        settingsCache.put(topic, new CachedSettings(settings, System.nanoTime()));
    }

    /**
     * Compare-and-set on the topic's settings JSON ({@code settings.lua}): written only if still what {@code change}
     * was given, else read again and {@code change} applied anew.
     */
    @Override
    public TopicSettings updateSettings(String topic, UnaryOperator<TopicSettings> change) {
        JobRules.checkTopic(topic);
        registerTopic(topic);
        partitionsForWrite(topic);
        for (int round = 0; round < SETTINGS_UPDATE_ROUNDS; round++) {
            String read = call("read settings", () -> redis.hget(RedisKeys.SETTINGS, topic));
            TopicSettings next = change.apply(read == null ? TopicSettings.empty() : parseSettings(topic, read));
            String json = encodeSettings(topic, next);
            Object written = evalOneAcknowledged("update settings", Op.SETTINGS, List.of(RedisKeys.SETTINGS),
                    List.of(topic, read == null ? "0" : "1", read == null ? "" : read, json));
            if ((Long) written == 1) {
                TopicSettings stored = parseSettings(topic, json);
                settingsCache.put(topic, new CachedSettings(stored, System.nanoTime()));
                return stored;
            }
        }
        throw new StoreException(StoreStatus.CONFLICT, "the settings of topic " + topic + " kept changing under this"
                + " update (" + SETTINGS_UPDATE_ROUNDS + " concurrent updates won); send it again");
    }

    private String encodeSettings(String topic, TopicSettings settings) {
        try {
            return codec.mapper().writeValueAsString(settings);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode the settings of topic " + topic + ": " + e.getOriginalMessage(), e);
        }
    }

    private TopicSettings parseSettings(String topic, String json) {
        try {
            return codec.mapper().readValue(json, TopicSettings.class);
        } catch (JsonProcessingException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the stored settings of topic " + topic
                    + " are not readable (" + e.getOriginalMessage() + "); store them again", e);
        }
    }

    /** Settings for the hot path, at most {@code settingsCacheTtl} old. */
    private TopicSettings cachedSettings(String topic) {
        CachedSettings cached = settingsCache.get(topic);
        if (cached != null && System.nanoTime() - cached.readAtNanos() < options.settingsCacheTtl().toNanos()) {
            return cached.settings();
        }
        return settings(topic);
    }

    // ---------------------------------------------------------------- leases

    @Override
    public ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1");
        }
        int wanted = Math.min(MAX_RESERVE, max);
        Partition[] ps = partitions(topic);
        if (ps.length == 1) {
            List<Lease> leases = new ArrayList<>();
            long[] nextAndNow = reservePartition(ps[0], lane, wanted, defaultLeaseMs, leases);
            return new ReserveResult(leases, nextAndNow[0], nextAndNow[1]);
        }
        return reserveAcross(ps, lane, wanted, defaultLeaseMs);
    }

    /**
     * Reserve over several partitions in two pipelines, each one round trip per node (before: two sequential calls
     * per partition): the first reads each partition's earliest {@code wanted} entries of the lane, the second runs
     * the reserve script on the partitions that get a share ({@link ReserveShares}: earliest first across partitions,
     * but every partition with entries is guaranteed {@code wanted / (2 × those partitions)}, so that a partition
     * whose backlog is always older cannot starve the others; ties go to a rotating partition).
     *
     * <p>A partition whose node fails its part (a failover, a slot being moved: MOVED, ASK, TRYAGAIN, a node that did
     * not answer) is left out of this reserve instead of failing it: the leases the other partitions' scripts made are
     * handed out rather than stranded until they expire, so the partitions of healthy masters keep delivering. The
     * answer's next due time is then at most {@value #RETRY_FAILED_PARTITION_MS} ms away, so the caller comes back for
     * the partition left out; the call fails (UNAVAILABLE) only when every partition failed.
     */
    private ReserveResult reserveAcross(Partition[] ps, Delivery lane, int wanted, long defaultLeaseMs) {
        List<Partition> all = Arrays.asList(ps);
        List<RuntimeException> failures = new ArrayList<>();
        List<List<Tuple>> heads = eachPartition("reserve", all.size(), failures, pipe -> all.stream()
                .map(p -> pipe.zrangeWithScores(p.scheduled(lane), 0, wanted - 1)).toList());
        long[][] scores = new long[ps.length][];
        for (int i = 0; i < ps.length; i++) {
            List<Tuple> head = heads.get(i);
            scores[i] = head == null ? new long[0] : head.stream().mapToLong(t -> (long) t.getScore()).toArray();
        }
        int[] share = ReserveShares.of(scores, wanted, Math.floorMod(reserveTurn.getAndIncrement(), ps.length));
        List<Partition> chosen = new ArrayList<>();
        List<List<String>> keys = new ArrayList<>();
        List<List<String>> args = new ArrayList<>();
        long next = -1;
        for (int i = 0; i < ps.length; i++) {
            if (share[i] == 0) {
                next = earlier(next, scores[i].length == 0 ? -1 : scores[i][0]);
                continue;
            }
            chosen.add(ps[i]);
            keys.add(reserveKeys(ps[i], lane));
            args.add(reserveArgs(share[i], defaultLeaseMs));
        }
        List<Lease> leases = new ArrayList<>();
        long now = -1;
        if (!chosen.isEmpty()) {
            List<Object> answers = eachPartition("reserve", chosen.size(), failures, pipe -> {
                List<Response<Object>> sent = new ArrayList<>(chosen.size());
                for (int c = 0; c < chosen.size(); c++) {
                    sent.add(pipe.evalsha(scripts.sha(Op.RESERVE), keys.get(c), args.get(c)));
                }
                return sent;
            });
            for (int c = 0; c < chosen.size(); c++) {
                Object answer = answers.get(c);
                if (answer instanceof JedisException e && Scripts.isNoScript(e)) {
                    // did not run: loaded and run on its own (a failure here fails the call, as for one partition)
                    int i = c;
                    answer = call("reserve", () -> scripts.eval(Op.RESERVE, keys.get(i), args.get(i)));
                }
                if (answer == null) {
                    continue;
                }
                long[] nextAndNow = readReserveAnswer(chosen.get(c), (List<?>) answer, leases);
                next = earlier(next, nextAndNow[0]);
                now = Math.max(now, nextAndNow[1]);
            }
        }
        if (now < 0) {
            now = now();
        }
        if (!failures.isEmpty()) {
            nodes.refreshSoon();
            next = earlier(next, now + RETRY_FAILED_PARTITION_MS);
            LOG.debug("reserve on topic {}: {} partition part(s) failed and were left out ({}); {} lease(s) from the"
                    + " others", ps[0].topic(), failures.size(), failures.get(0).toString(), leases.size());
        }
        leases.sort(Comparator.comparingLong(l -> l.job().runAt()));
        return new ReserveResult(leases, next, now);
    }

    /**
     * One pipeline of {@code size} commands (one per partition; per node on a cluster); the answer of each, or null
     * where that partition's node failed its part (the failure added to {@code failures}). A NOSCRIPT answer is
     * returned as its exception for the caller to retry. Fails, as {@link #call} does, when the pipeline cannot be
     * sent at all or every part failed.
     */
    private <T> List<T> eachPartition(String operation, int size, List<RuntimeException> failures,
                                      java.util.function.Function<AbstractPipeline, List<Response<T>>> commands) {
        List<Response<T>> responses = call(operation, () -> {
            try (AbstractPipeline pipeline = nodes.pipelined()) {
                List<Response<T>> sent = commands.apply(pipeline);
                pipeline.sync();
                return sent;
            }
        });
        List<T> out = new ArrayList<>(size);
        List<RuntimeException> mine = new ArrayList<>();
        for (Response<T> r : responses) {
            try {
                out.add(r.get());
            } catch (JedisException e) {
                if (Scripts.isNoScript(e)) {
                    @SuppressWarnings("unchecked")
                    T asAnswer = (T) e;
                    out.add(asAnswer);
                    continue;
                }
                mine.add(e);
                out.add(null);
            } catch (IllegalStateException e) {
                if (!isUnansweredPipeline(e)) {
                    throw e;
                }
                mine.add(e);
                out.add(null);
            }
        }
        if (!mine.isEmpty() && mine.size() == size) {
            // nothing answered: the caller fails as for any call (UNAVAILABLE, the slot map re-read)
            call(operation, () -> {
                throw mine.get(0);
            });
        }
        failures.addAll(mine);
        return out;
    }

    private static List<String> reserveKeys(Partition p, Delivery lane) {
        return List.of(p.jobs(), p.scheduled(lane), p.leased(), p.finished(), p.quarantine());
    }

    private List<String> reserveArgs(int count, long defaultLeaseMs) {
        String tokenBase = Long.toString(10_000_000_000_000L + (random.nextLong() & Long.MAX_VALUE) % 890_000_000_000_000L);
        return List.of(Integer.toString(count), Long.toString(defaultLeaseMs), tokenBase, retentionMs);
    }

    /**
     * Runs the reserve script on one partition, adding its leases; returns {nextDueAt, now}. A leased record this code
     * cannot decode costs the others nothing: it is made DEAD at once (its attempt cannot be made), so that it reaches
     * the outbox, and from there the archiver's quarantine, instead of coming back at every lease expiry.
     */
    private long[] reservePartition(Partition p, Delivery lane, int count, long defaultLeaseMs, List<Lease> leases) {
        List<?> answer = (List<?>) call("reserve", () -> scripts.eval(Op.RESERVE, reserveKeys(p, lane),
                reserveArgs(count, defaultLeaseMs)));
        return readReserveAnswer(p, answer, leases);
    }

    /** Adds the leases of one reserve script answer; returns {nextDueAt, now}. */
    private long[] readReserveAnswer(Partition p, List<?> answer, List<Lease> leases) {
        int quarantined = ((Long) answer.get(2)).intValue();
        logQuarantined(p, answer.subList(3, 3 + 2 * quarantined), "reserve");
        List<LeaseRef> unreadable = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        for (int a = 3 + 2 * quarantined; a + 3 < answer.size(); a += 4) {
            String id = (String) answer.get(a);
            long token = Long.parseLong((String) answer.get(a + 1));
            long deadline = Long.parseLong((String) answer.get(a + 2));
            try {
                leases.add(new Lease(codec.decode(p.topic(), id, (String) answer.get(a + 3)), token, deadline));
            } catch (RuntimeException e) {
                unreadable.add(new LeaseRef(new JobRef(p.topic(), id), token));
                reasons.add(String.valueOf(e.getMessage()));
            }
        }
        for (int i = 0; i < unreadable.size(); i++) {
            failUnreadable(unreadable.get(i), reasons.get(i));
        }
        return new long[] {Long.parseLong((String) answer.get(1)), Long.parseLong((String) answer.get(0))};
    }

    /**
     * Ends a leased job this code cannot decode. Should the store fail now, the lease is left to expire and the job
     * comes back to a later reserve, which tries again: the leases decoded beside it are handed out either way.
     */
    private void failUnreadable(LeaseRef lease, String reason) {
        LOG.error("Job {} cannot be read by this version of delayq ({}); it is made DEAD without an attempt, and its"
                + " dead letter goes to the outbox", lease.job(), reason);
        try {
            nack(lease, Failure.dead("the stored job cannot be read by this version of delayq: " + reason, null));
        } catch (StoreException e) {
            LOG.warn("Could not end unreadable job {} now; it comes back when its lease expires: {}", lease.job(),
                    e.getMessage());
        }
    }

    /** Logs what a script moved to the quarantine: {@code pairs} is id, reason, id, reason, … */
    private static void logQuarantined(Partition p, List<?> pairs, String script) {
        for (int i = 0; i + 1 < pairs.size(); i += 2) {
            LOG.error("Job {}/{} has a record the {} script cannot parse ({}); it was moved, raw, to {} for an"
                    + " operator to repair, and costs the other jobs nothing", p.topic(), pairs.get(i), script,
                    pairs.get(i + 1), p.quarantine());
        }
    }

    @Override
    public List<StoreStatus> ack(List<LeaseRef> leases) {
        if (leases.isEmpty()) {
            return List.of();
        }
        // one script call per partition (in chunks), pipelined when there are several
        Map<Partition, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            JobRef ref = leases.get(i).job();
            groups.computeIfAbsent(partition(ref.topic(), ref.id()), k -> new ArrayList<>()).add(i);
        }
        List<List<Integer>> chunks = new ArrayList<>();
        List<List<String>> keys = new ArrayList<>();
        List<List<String>> args = new ArrayList<>();
        groups.forEach((p, indexes) -> {
            // a topic without a recorded partition count has no jobs: nothing to archive, and no settings to cache
            String archive = partitions.containsKey(p.topic()) && cachedSettings(p.topic()).isArchiveSucceeded()
                    ? "1" : "0";
            for (int from = 0; from < indexes.size(); from += ENQUEUE_CHUNK) {
                List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + ENQUEUE_CHUNK));
                List<String> a = new ArrayList<>(2 + 2 * chunk.size());
                a.add(archive);
                a.add(historySize);
                for (int index : chunk) {
                    LeaseRef lease = leases.get(index);
                    a.add(lease.job().id());
                    a.add(Long.toString(lease.token()));
                }
                chunks.add(chunk);
                keys.add(List.of(p.jobs(), p.leased(), p.finished(), p.archive(), p.stats()));
                args.add(a);
            }
        });
        List<Object> answers = evalAcknowledged("ack", Op.ACK, keys, args);
        StoreStatus[] statuses = new StoreStatus[leases.size()];
        for (int c = 0; c < chunks.size(); c++) {
            List<?> codes = (List<?>) answers.get(c);
            List<Integer> chunk = chunks.get(c);
            for (int j = 0; j < chunk.size(); j++) {
                statuses[chunk.get(j)] = ScriptCodes.status((Long) codes.get(j));
            }
        }
        return Arrays.asList(statuses);
    }

    @Override
    public StoreStatus nack(LeaseRef lease, Failure failure) {
        JobRef ref = lease.job();
        Partition p = partition(ref.topic(), ref.id());
        Object answer = evalOneAcknowledged("nack", Op.NACK,
                List.of(p.jobs(), p.leased(), p.schedPush(), p.schedPull(), p.finished(), p.archive(), p.stats()),
                List.of(ref.id(), Long.toString(lease.token()), Long.toString(failure.isDead() ? -1 : failure.retryDelayMs()),
                        failure.error() == null ? "" : failure.error(),
                        failure.httpStatus() == null ? "" : failure.httpStatus().toString(),
                        retentionMs, historySize, ref.topic(), failure.held() ? "1" : "0"));
        return ScriptCodes.status((Long) answer);
    }

    @Override
    public long extend(LeaseRef lease, long leaseMs) {
        if (leaseMs < 1) {
            throw new IllegalArgumentException("leaseMs must be positive");
        }
        JobRef ref = lease.job();
        Partition p = partition(ref.topic(), ref.id());
        List<?> answer = (List<?>) evalOneAcknowledged("extend", Op.EXTEND, List.of(p.jobs(), p.leased()),
                List.of(ref.id(), Long.toString(lease.token()), Long.toString(leaseMs)));
        StoreException.check(ScriptCodes.status((Long) answer.get(0)), ref, "extended");
        return Long.parseLong((String) answer.get(1));
    }

    @Override
    public int expireLeases(String topic, int max) {
        int taken = 0;
        for (Partition p : partitions(topic)) {
            if (taken >= max) {
                break;
            }
            int wanted = max - taken;
            List<?> answer = (List<?>) call("expire leases", () -> scripts.eval(Op.EXPIRE,
                    List.of(p.jobs(), p.leased(), p.schedPush(), p.schedPull(), p.finished(), p.archive(), p.stats(),
                            p.quarantine()),
                    List.of(Integer.toString(wanted), retentionMs, historySize, topic,
                            Integer.toString(EXPIRED_LAST_ATTEMPT_RETRIES))));
            logQuarantined(p, answer.subList(1, answer.size()), "expire");
            taken += ((Long) answer.get(0)).intValue();
        }
        return taken;
    }

    // ---------------------------------------------------------------- producer changes

    @Override
    public Job cancel(JobRef ref) {
        Partition p = partition(ref.topic(), ref.id());
        List<?> answer = (List<?>) evalOneAcknowledged("cancel", Op.CANCEL,
                List.of(p.jobs(), p.schedPush(), p.schedPull(), p.leased(), p.finished()),
                List.of(ref.id(), retentionMs));
        StoreException.check(ScriptCodes.status((Long) answer.get(0)), ref, "cancelled");
        return codec.decode(ref.topic(), ref.id(), (String) answer.get(1));
    }

    @Override
    public Job reschedule(JobRef ref, Long delayMs, Long runAtMs) {
        if ((delayMs == null) == (runAtMs == null)) {
            throw new IllegalArgumentException("exactly one of delayMs and runAtMs must be set");
        }
        Partition p = partition(ref.topic(), ref.id());
        List<?> answer = (List<?>) evalOneAcknowledged("reschedule", Op.RESCHEDULE,
                List.of(p.jobs(), p.schedPush(), p.schedPull(), p.leased()),
                List.of(ref.id(), delayMs == null ? "" : delayMs.toString(), runAtMs == null ? "" : runAtMs.toString(),
                        ref.topic(), historySize));
        StoreException.check(ScriptCodes.status((Long) answer.get(0)), ref, "rescheduled");
        return codec.decode(ref.topic(), ref.id(), (String) answer.get(1));
    }

    // ---------------------------------------------------------------- notifications

    @Override
    public AutoCloseable subscribe(StoreListener listener) {
        return notifications.add(listener);
    }

    @Override
    public void publishBroadcast(Job job) {
        String json = codec.toJson(job);
        call("publish broadcast", () -> redis.publish(RedisKeys.BROADCAST, json));
    }

    // ---------------------------------------------------------------- outbox

    /**
     * Every partition of every known topic; the outbox is read across all of them. Topics in {@code dq:topics} have been
     * written (jobs or settings), so recording a count that is missing (settings stored before counts were recorded
     * for them) is what their first job would do.
     */
    private List<Partition> allPartitions() {
        List<Partition> all = new ArrayList<>();
        for (String topic : topics()) {
            all.addAll(Arrays.asList(partitionsForWrite(topic)));
        }
        return all;
    }

    /** One pipelined round trip over the partitions (per node on a cluster), not one call per partition. */
    private <T> List<T> perPartition(String operation, List<Partition> ps,
                                     java.util.function.BiFunction<AbstractPipeline, Partition, Response<T>> command) {
        return call(operation, () -> {
            List<Response<T>> responses = new ArrayList<>(ps.size());
            try (AbstractPipeline pipeline = nodes.pipelined()) {
                for (Partition p : ps) {
                    responses.add(command.apply(pipeline, p));
                }
                pipeline.sync();
            }
            List<T> out = new ArrayList<>(responses.size());
            for (Response<T> r : responses) {
                out.add(r.get());
            }
            return out;
        });
    }

    /**
     * O(max), not O(partitions × max): one pipelined XLEN per partition (an integer each), then XRANGE of only the
     * entries this read returns, each partition's share of {@code max} sized by {@link OutboxShares}. Entries come
     * oldest first within each partition and are sorted by their stream ids (the ms they were written) across them.
     */
    @Override
    public List<OutboxEntry> readOutbox(int max) {
        if (max < 1) {
            return List.of();
        }
        List<Partition> ps = allPartitions();
        if (ps.isEmpty()) {
            return List.of();
        }
        List<Long> sizes = perPartition("read the outbox size", ps, (pipe, p) -> pipe.xlen(p.archive()));
        int[] shares = OutboxShares.of(sizes.stream().mapToLong(Long::longValue).toArray(), max,
                outboxTurn.getAndAdd(max));
        Map<Partition, Integer> shareOf = new LinkedHashMap<>();
        for (int i = 0; i < ps.size(); i++) {
            if (shares[i] > 0) {
                shareOf.put(ps.get(i), shares[i]);
            }
        }
        if (shareOf.isEmpty()) {
            return List.of();
        }
        List<Partition> chosen = new ArrayList<>(shareOf.keySet());
        List<List<StreamEntry>> reads = perPartition("read outbox", chosen,
                (pipe, p) -> pipe.xrange(p.archive(), "-", "+", shareOf.get(p)));
        List<StreamEntry> order = new ArrayList<>();
        List<OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < chosen.size(); i++) {
            for (StreamEntry e : reads.get(i)) {
                order.add(e);
                entries.add(outboxEntry(chosen.get(i), e));
            }
        }
        List<Integer> idx = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            idx.add(i);
        }
        idx.sort(Comparator.comparing(i -> order.get(i).getID()));
        List<OutboxEntry> sorted = new ArrayList<>(entries.size());
        for (int i : idx) {
            sorted.add(entries.get(i));
        }
        return sorted;
    }

    /** One outbox entry, or the entry marked unreadable when this code cannot decode it. */
    private OutboxEntry outboxEntry(Partition p, StreamEntry e) {
        String entryId = p.label() + "@" + e.getID();
        String id = e.getFields().get("i");
        String record = e.getFields().get("r");
        try {
            if (id == null || record == null) {
                throw new IllegalStateException("outbox entry " + entryId + " lacks its job id (i) or record (r)");
            }
            return new OutboxEntry(entryId, codec.decode(p.topic(), id, record));
        } catch (RuntimeException ex) {
            return OutboxEntry.unreadable(entryId, new JobRef(p.topic(), id == null ? "" : id), record,
                    String.valueOf(ex.getMessage()));
        }
    }

    @Override
    public void deleteOutbox(List<OutboxEntry> entries) {
        Map<Partition, List<StreamEntryID>> byStream = new LinkedHashMap<>();
        for (OutboxEntry entry : entries) {
            byStream.computeIfAbsent(outboxPartition(entry), k -> new ArrayList<>()).add(outboxStreamId(entry));
        }
        if (byStream.isEmpty()) {
            return;
        }
        // one pipeline (a round trip per node) and, with minReplicas, one WAIT per node
        List<Partition> ps = new ArrayList<>(byStream.keySet());
        call("delete outbox entries", () -> pipelineWithWaits("delete outbox entries",
                ps.stream().map(Partition::archive).toList(),
                (pipe, i) -> pipe.xdel(ps.get(i).archive(), byStream.get(ps.get(i)).toArray(StreamEntryID[]::new))))
                .forEach(Response::get);
    }

    /** Moves entries from their partition's archive stream to its quarantine stream ({@code quarantine.lua}). */
    @Override
    public void quarantineOutbox(List<OutboxEntry> entries) {
        Map<Partition, List<String>> byPartition = new LinkedHashMap<>();
        for (OutboxEntry entry : entries) {
            String reason = entry.isReadable() ? "quarantined by request" : entry.unreadable().reason();
            List<String> args = byPartition.computeIfAbsent(outboxPartition(entry), k -> new ArrayList<>());
            args.add(outboxStreamId(entry).toString());
            args.add(reason);
        }
        if (byPartition.isEmpty()) {
            return;
        }
        List<Partition> ps = new ArrayList<>(byPartition.keySet());
        evalAcknowledged("quarantine outbox entries", Op.QUARANTINE,
                ps.stream().map(p -> List.of(p.archive(), p.quarantine())).toList(),
                ps.stream().map(byPartition::get).toList());
    }

    @Override
    public long outboxSize() {
        return sumOfLengths("read the outbox size", Partition::archive);
    }

    @Override
    public long quarantineSize() {
        return sumOfLengths("read the quarantine size", Partition::quarantine);
    }

    private long sumOfLengths(String operation, java.util.function.Function<Partition, String> stream) {
        long size = 0;
        for (long n : perPartition(operation, allPartitions(), (pipe, p) -> pipe.xlen(stream.apply(p)))) {
            size += n;
        }
        return size;
    }

    /** The partition named by an outbox entry id ({@code topic#p@streamId}), under the topic's recorded layout. */
    private Partition outboxPartition(OutboxEntry entry) {
        String entryId = entry.entryId();
        int at = entryId.lastIndexOf('@');
        int hash = entryId.lastIndexOf('#', at);
        if (at < 0 || hash < 0) {
            throw new IllegalArgumentException("'" + entryId + "' is not an outbox entry id of this store");
        }
        Partition[] ps = partitions(entryId.substring(0, hash));
        int index;
        try {
            index = Integer.parseInt(entryId.substring(hash + 1, at));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + entryId + "' is not an outbox entry id of this store", e);
        }
        if (index < 0 || index >= ps.length) {
            throw new IllegalArgumentException("'" + entryId + "' names partition " + index + " of a topic with "
                    + ps.length + " partition(s)");
        }
        return ps[index];
    }

    private static StreamEntryID outboxStreamId(OutboxEntry entry) {
        String entryId = entry.entryId();
        return new StreamEntryID(entryId.substring(entryId.lastIndexOf('@') + 1));
    }

    @Override
    public long now() {
        return call("read the clock", () -> (Long) redis.eval(NOW_SCRIPT, RedisKeys.TOPICS));
    }

    /** PING, for the health check. */
    public String ping() {
        return call("ping", redis::ping);
    }

    @Override
    public void close() {
        trimmer.shutdownNow();
        notifications.close();
        try {
            if (ownsClient) {
                redis.close();
            }
        } finally {
            nodes.close();
            onClose.run();
        }
    }

    /** The circuits of callback origins, in {@code dq:circuits} ({@link RedisCircuitBreakers}). */
    @Override
    public CircuitBreakers circuitBreakers() {
        return breakers;
    }

    // ---------------------------------------------------------------- operator views (RedisOperatorViews)

    @Override
    public long[] dueForecast(String topic, long fromMs, long bucketMs, int buckets) {
        return call("count the due forecast", () -> views.dueForecast(topic, fromMs, bucketMs, buckets));
    }

    @Override
    public List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        return call("list the leases in flight", () -> views.leasesInFlight(topic, limit));
    }

    @Override
    public void addHistory(List<TopicMinute> increments) {
        call("add to the topic history", () -> {
            views.addHistory(increments);
            return null;
        });
    }

    @Override
    public List<TopicMinute> history(String topic, long fromMinute, long toMinute) {
        return call("read the topic history", () -> views.history(topic, fromMinute, toMinute));
    }

    // ---------------------------------------------------------------- helpers

    /** The partition of a job, for reads and transitions of jobs that exist (see {@link #partitions}). */
    Partition partition(String topic, String id) {
        return pick(partitions(topic), id);
    }

    /** A job's partition: a stable hash of its id (CRC-32, the same on every instance), mod P. */
    private static Partition pick(Partition[] ps, String id) {
        if (ps.length == 1) {
            return ps[0];
        }
        CRC32 crc = new CRC32();
        crc.update(id.getBytes(java.nio.charset.StandardCharsets.UTF_8));
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
        String recorded = call("read the partition count of topic " + topic,
                () -> redis.hget(RedisKeys.PARTITIONS, topic));
        if (recorded == null) {
            return build(topic, PartitionRecord.forNewTopic(configured));
        }
        return partitions.computeIfAbsent(topic, t -> build(t, adopted(t, PartitionRecord.parse(t, recorded), configured)));
    }

    /** The partitions of a topic about to get jobs or settings: its count is recorded now unless it was already. */
    private Partition[] partitionsForWrite(String topic) {
        Partition[] known = partitions.get(topic);
        if (known != null) {
            return known;
        }
        JobRules.checkTopic(topic);
        int configured = options.partitionsOf(topic);
        String ours = PartitionRecord.forNewTopic(configured).encode();
        long written = writeOne("record the partition count of topic " + topic, RedisKeys.PARTITIONS,
                pipe -> pipe.hsetnx(RedisKeys.PARTITIONS, topic, ours),
                () -> redis.hsetnx(RedisKeys.PARTITIONS, topic, ours));
        String recorded = written == 1 ? ours // recorded just now: ours
                : call("read the partition count of topic " + topic, () -> redis.hget(RedisKeys.PARTITIONS, topic));
        PartitionRecord record = recorded == null ? PartitionRecord.forNewTopic(configured)
                : PartitionRecord.parse(topic, recorded);
        return partitions.computeIfAbsent(topic, t -> build(t, adopted(t, record, configured)));
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

    /** One EVALSHA, or a pipeline of them; a call that met NOSCRIPT is repeated (it did not run). */
    List<Object> evalAll(Op op, List<List<String>> keys, List<List<String>> args) {
        if (keys.size() == 1) {
            return List.of(scripts.eval(op, keys.get(0), args.get(0)));
        }
        List<Response<Object>> responses = new ArrayList<>(keys.size());
        try (AbstractPipeline pipeline = nodes.pipelined()) {
            for (int i = 0; i < keys.size(); i++) {
                responses.add(pipeline.evalsha(scripts.sha(op), keys.get(i), args.get(i)));
            }
            pipeline.sync();
        }
        List<Object> answers = new ArrayList<>(keys.size());
        for (int i = 0; i < responses.size(); i++) {
            Object answer;
            try {
                answer = responses.get(i).get();
            } catch (JedisException e) {
                if (!Scripts.isNoScript(e)) {
                    throw e;
                }
                answer = scripts.eval(op, keys.get(i), args.get(i));
            }
            answers.add(answer);
        }
        return answers;
    }

    // ---------------------------------------------------------------- replicated acknowledgements

    /**
     * Script calls whose success is told to a caller: {@link #evalAll} when {@code minReplicas} is 0; else one pipeline
     * of the calls, then a WAIT per node they went to (see {@link #pipelineWithWaits}). A call that met NOSCRIPT did
     * not run: it is loaded and sent again, with its own WAIT.
     */
    private List<Object> evalAcknowledged(String operation, Op op, List<List<String>> keys, List<List<String>> args) {
        if (options.minReplicas() == 0) {
            return call(operation, () -> evalAll(op, keys, args));
        }
        return call(operation, () -> evalWaiting(operation, op, keys, args, true));
    }

    private Object evalOneAcknowledged(String operation, Op op, List<String> keys, List<String> args) {
        return evalAcknowledged(operation, op, List.of(keys), List.of(args)).get(0);
    }

    private List<Object> evalWaiting(String operation, Op op, List<List<String>> keys, List<List<String>> args,
                                     boolean retryNoScript) {
        List<Response<?>> responses = pipelineWithWaits(operation, keys.stream().map(k -> k.get(0)).toList(),
                (pipe, i) -> pipe.evalsha(scripts.sha(op), keys.get(i), args.get(i)));
        Object[] answers = new Object[responses.size()];
        List<Integer> again = new ArrayList<>();
        for (int i = 0; i < responses.size(); i++) {
            try {
                answers[i] = responses.get(i).get();
            } catch (JedisException e) {
                if (!retryNoScript || !Scripts.isNoScript(e)) {
                    throw e;
                }
                again.add(i);
            }
        }
        if (!again.isEmpty()) {
            again.forEach(i -> scripts.reload(op, keys.get(i).get(0)));
            List<Object> retried = evalWaiting(operation, op, again.stream().map(keys::get).toList(),
                    again.stream().map(args::get).toList(), false);
            for (int j = 0; j < again.size(); j++) {
                answers[again.get(j)] = retried.get(j);
            }
        }
        return Arrays.asList(answers);
    }

    /** One write told to a caller: {@code direct} when {@code minReplicas} is 0, else {@code command} and its WAIT. */
    private <T> T writeOne(String operation, String key, java.util.function.Function<AbstractPipeline, Response<T>> command,
                           Supplier<T> direct) {
        if (options.minReplicas() == 0) {
            return call(operation, direct);
        }
        return call(operation, () -> {
            @SuppressWarnings("unchecked")
            T answer = (T) pipelineWithWaits(operation, List.of(key), (pipe, i) -> command.apply(pipe)).get(0).get();
            return answer;
        });
    }

    /**
     * Appends {@code commands} (command i routed by {@code keys[i]}) to one pipeline, then, when {@code minReplicas} is
     * above 0, one {@code WAIT minReplicas replicaTimeout} per node they went to, behind them: WAIT counts the replicas
     * that have every write <em>of its own connection</em>, and a pipeline uses one connection per node, so the WAIT
     * must travel in the same pipeline, routed by a key of that node, rather than as a separate call from the pool.
     * A node that answers with fewer replicas fails the whole call with UNAVAILABLE (the writes are on the master and
     * may or may not survive a failover); the commands' own answers are the caller's to read.
     */
    private List<Response<?>> pipelineWithWaits(String operation, List<String> keys,
                                                java.util.function.BiFunction<AbstractPipeline, Integer, Response<?>> commands) {
        int replicas = options.minReplicas();
        long timeoutMs = options.replicaTimeout().toMillis();
        List<Response<?>> responses = new ArrayList<>(keys.size());
        List<Response<Long>> waits = new ArrayList<>();
        try (AbstractPipeline pipeline = nodes.pipelined()) {
            Map<Object, String> keyOfNode = new LinkedHashMap<>();
            for (int i = 0; i < keys.size(); i++) {
                responses.add(commands.apply(pipeline, i));
                keyOfNode.putIfAbsent(nodes.nodeOf(keys.get(i)), keys.get(i));
            }
            if (replicas > 0) {
                keyOfNode.values().forEach(key -> waits.add(pipeline.waitReplicas(key, replicas, timeoutMs)));
            }
            pipeline.sync();
        }
        for (Response<Long> wait : waits) {
            long reached = wait.get();
            if (reached < replicas) {
                throw new StoreException(StoreStatus.UNAVAILABLE, "the " + operation + " write reached " + reached
                        + " of " + replicas + " replica(s) within " + timeoutMs + " ms; it may or may not survive a"
                        + " failover (the master has it)");
            }
        }
        return responses;
    }

    private long firstScore(String zset) {
        List<Tuple> first = call("read", () -> redis.zrangeWithScores(zset, 0, 0));
        return first.isEmpty() ? -1 : (long) first.get(0).getScore();
    }

    /**
     * A cluster pipeline whose node failed during {@code sync} leaves that node's responses unset (Jedis logs the
     * connection error instead of throwing), and reading one throws this from {@link Response#get}.
     */
    private static boolean isUnansweredPipeline(IllegalStateException e) {
        StackTraceElement[] trace = e.getStackTrace();
        return trace.length > 0 && trace[0].getClassName().equals(Response.class.getName());
    }

    private static long earlier(long a, long b) {
        if (a < 0) {
            return b;
        }
        if (b < 0) {
            return a;
        }
        return Math.min(a, b);
    }

    /** Runs a Redis call, turning a failure to reach Redis into {@link StoreException} UNAVAILABLE. */
    <T> T call(String operation, Supplier<T> action) {
        try {
            return action.get();
        } catch (JedisException e) {
            // a failover or resharding: pipelines follow neither MOVED nor a dead master by themselves
            nodes.refreshSoon();
            throw new StoreException(StoreStatus.UNAVAILABLE, "Redis did not " + operation + ": " + e.getMessage()
                    + " (is Redis running and reachable?)", e);
        } catch (IllegalStateException e) {
            if (!isUnansweredPipeline(e)) {
                throw e;
            }
            nodes.refreshSoon();
            throw new StoreException(StoreStatus.UNAVAILABLE, "Redis did not " + operation + ": a node did not answer"
                    + " its part of the pipeline (a failover or a node down?)", e);
        }
    }
}
