package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.EnqueueCoalescer;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.LeaseRef;
import io.delayq.core.NackOutcome;
import io.delayq.core.NewJob;
import io.delayq.core.OutboxEntry;
import io.delayq.core.ReclaimedLeases;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.delayq.core.TopicStats;
import io.delayq.core.TopicTimes;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.history.TopicMinute;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The {@link JobStore} on Redis: one Lua script per transition, every key of a topic partition under one hash tag
 * (see storage-redis/README.md for the key table and the classes). The same code runs on a standalone server, behind
 * Sentinel, or on a cluster, since it only uses {@link UnifiedJedis}. This class wires the parts and delegates to
 * them: {@link EnqueueWriter}, {@link LeaseReserver}, {@link LeaseTransitions}, {@link ProducerChanges},
 * {@link TopicReads}, {@link TopicSettingsStore}, {@link OutboxStreams}, {@link Notifications}, the operator views,
 * the circuit breakers, the tenancy and the rate limits, over {@link TopicPartitions} (with {@link TopicRegistry}), {@link ReplicatedWrites} and
 * {@link RedisCalls}.
 */
public final class RedisJobStore implements JobStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisJobStore.class);
    /** How soon a reserve that left out a partition whose node failed asks its caller to come back. */
    static final long RETRY_FAILED_PARTITION_MS = 1_000;
    /** Routes the clock's script ({@code now.lua}) on a cluster; it reads no key. */
    private static final List<String> NOW_KEYS = List.of(RedisKeys.TOPICS);

    private final UnifiedJedis redis;
    private final boolean ownsClient;
    private final RedisStoreOptions options;
    private final ClusterNodes nodes;
    private final RecordCodec codec = new RecordCodec();

    private final RedisCalls calls;
    private final TopicRegistry registry;
    private final TopicPartitions topics;
    private final TopicSettingsStore settings;
    private final EnqueueWriter enqueuer;
    private final EnqueueCoalescer coalescer;
    private final TopicReads reads;
    private final LeaseTransitions leases;
    private final LeaseReserver reserver;
    private final ProducerChanges changes;
    private final OutboxStreams outbox;
    private final Notifications notifications;
    private final RedisOperatorViews views;
    private final RedisJobListing listing;
    private final RedisCircuitBreakers breakers;
    private final RedisTenantRegistry tenants;
    private final RedisRateLimiters rateLimiters;
    private final RedisScheduleStore schedules;
    private final TopicBatchReads batchReads;
    private final FinishedTrimmer trimmer;
    private final TopicForgetting forgetting;
    private final TopicNameIndex topicNames;
    private final TopicIndexing indexing;
    private Runnable onClose = () -> { };

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
        Scripts scripts = new Scripts(redis);
        this.nodes = new ClusterNodes(redis);
        this.calls = new RedisCalls(redis, nodes, scripts);
        ScriptArgs scriptArgs = ScriptArgs.of(options);
        ReplicatedWrites writes = new ReplicatedWrites(calls, options);
        this.topicNames = TopicNameIndex.registry(calls);
        TopicNameIndex withSchedules = TopicNameIndex.withSchedules(calls);
        this.registry = new TopicRegistry(calls, topicNames);
        this.topics = new TopicPartitions(calls, registry, options);
        this.forgetting = new TopicForgetting(calls, registry, topicNames, this);
        this.settings = new TopicSettingsStore(calls, writes, topics, codec, options);
        this.enqueuer = new EnqueueWriter(writes, topics, codec);
        this.coalescer = new EnqueueCoalescer("Redis", enqueuer::enqueue);
        this.reads = new TopicReads(calls, topics, codec);
        this.leases = new LeaseTransitions(calls, writes, topics, settings, scriptArgs);
        this.reserver = new LeaseReserver(calls, topics, leases, codec, scriptArgs, this::now);
        this.changes = new ProducerChanges(writes, topics, codec, scriptArgs);
        this.outbox = new OutboxStreams(calls, writes, topics, codec);
        this.notifications = new Notifications(redis, nodes, codec::jobFromJson);
        this.views = new RedisOperatorViews(calls, topics);
        this.listing = new RedisJobListing(calls, topics, codec);
        this.breakers = new RedisCircuitBreakers(calls);
        this.tenants = new RedisTenantRegistry(calls, writes);
        this.rateLimiters = new RedisRateLimiters(calls);
        this.schedules = new RedisScheduleStore(calls, writes, topics, codec, withSchedules);
        this.batchReads = new TopicBatchReads(calls, topics);
        calls.call("load scripts", () -> {
            scripts.loadAll(RedisKeys.TOPICS);
            return null;
        });
        warnIfRedisMayEvict();
        this.indexing = new TopicIndexing(List.of(topicNames, withSchedules));
        this.trimmer = new FinishedTrimmer(calls, topics, scriptArgs, options);
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

    /** As {@link #connect(String)}, with {@code options} (and the configuration's default timeout, 2 s). */
    public static RedisJobStore connect(String uri, RedisStoreOptions options) {
        return new RedisJobStore(RedisClients.standalone(uri, RedisClients.Options.defaults(options.poolSize())),
                options, true);
    }

    /** Runs {@code action} when the store closes (e.g. stopping an embedded server). */
    void onClose(Runnable action) {
        this.onClose = action;
    }

    UnifiedJedis client() {
        return redis;
    }

    RedisStoreOptions options() {
        return options;
    }

    /** Topics this store keeps anything of in memory (partition counts, settings), for tests of its bounds. */
    Set<String> cachedTopics() {
        Set<String> cached = topics.cachedTopics();
        cached.addAll(settings.cachedTopics());
        return cached;
    }

    /** The partition of a job (see {@link TopicPartitions#partition}). */
    Partition partition(String topic, String id) {
        return topics.partition(topic, id);
    }

    /** The partitions of a topic (see {@link TopicPartitions#partitions}). */
    Partition[] partitions(String topic) {
        return topics.partitions(topic);
    }

    /** One pass of the finished-record trim (see {@link FinishedTrimmer}), for tests that cannot wait for the next. */
    void trimFinished() {
        trimmer.trim();
    }

    // ---------------------------------------------------------------- enqueue (EnqueueWriter)

    /** One job; concurrent callers share script calls (see {@link EnqueueCoalescer}). */
    @Override
    public EnqueueResult enqueue(NewJob job) {
        return coalescer.submit(job);
    }

    @Override
    public List<EnqueueResult> enqueue(List<NewJob> jobs) {
        return enqueuer.enqueue(jobs);
    }

    // ---------------------------------------------------------------- reads (TopicReads, TopicPartitions)

    @Override
    public Optional<Job> find(JobRef ref) {
        return reads.find(ref);
    }

    @Override
    public long nextLeaseDeadline(String topic) {
        return reads.nextLeaseDeadline(topic);
    }

    @Override
    public long nextDueAt(String topic, Delivery lane) {
        return reads.nextDueAt(topic, lane);
    }

    @Override
    public Set<String> topics() {
        return topics.topics();
    }

    @Override
    public TopicStats stats(String topic) {
        return reads.stats(topic);
    }

    /** One range of {@code dq:topics}' index by name ({@link TopicNameIndex}), not a sort of the whole SET. */
    @Override
    public List<String> topics(String after, int limit) {
        return topicNames.page(after, limit);
    }

    /** One range of {@code dq:topics}' index by name ({@link TopicNameIndex}): the cost of the page. */
    @Override
    public List<String> topicsStartingWith(String prefix, String after, int limit) {
        return topicNames.startingWith(prefix, after, limit);
    }

    /** One SMISMEMBER of {@code dq:topics} per 1,000 names. */
    @Override
    public Set<String> topicsAmong(Collection<String> names) {
        return topics.among(names);
    }

    /** One HMGET of {@code dq:settings} (issue 26, finding 12: a page of topics costs a few calls, not 2 per topic). */
    @Override
    public Map<String, TopicSettings> settings(Collection<String> topics) {
        return TopicForgetting.settings(calls, topics, settings::parse);
    }

    @Override
    public boolean deleteTopic(String topic) {
        return forgetting.delete(topic);
    }

    @Override
    public boolean forgetIfIdle(String topic, long idleMs) {
        return forgetting.forgetIfIdle(topic, idleMs);
    }

    /** One pipeline over every partition of the topics ({@link TopicBatchReads}). */
    @Override
    public Map<String, TopicStats> stats(Collection<String> topics) {
        return batchReads.stats(topics);
    }

    /** One pipeline over every partition of the topics ({@link TopicBatchReads}). */
    @Override
    public Map<String, TopicTimes> times(Collection<String> topics) {
        return batchReads.times(topics);
    }

    // ---------------------------------------------------------------- settings (TopicSettingsStore)

    @Override
    public TopicSettings settings(String topic) {
        return settings.settings(topic);
    }

    @Override
    public void putSettings(String topic, TopicSettings settings) {
        this.settings.put(topic, settings);
    }

    @Override
    public TopicSettings updateSettings(String topic, UnaryOperator<TopicSettings> change) {
        return settings.update(topic, change);
    }

    // ---------------------------------------------------------------- leases (LeaseReserver, LeaseTransitions)

    @Override
    public ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs) {
        return reserver.reserve(topic, lane, max, defaultLeaseMs, expiresAfterMs);
    }

    @Override
    public int expireOverdue(String topic, Delivery lane, int max, long expiresAfterMs) {
        return leases.expireOverdue(topic, lane, max, expiresAfterMs);
    }

    @Override
    public List<StoreStatus> ack(List<LeaseRef> leases) {
        return this.leases.ack(leases);
    }

    @Override
    public NackOutcome nackOutcome(LeaseRef lease, Failure failure) {
        return leases.nack(lease, failure);
    }

    @Override
    public long extend(LeaseRef lease, long leaseMs) {
        return leases.extend(lease, leaseMs);
    }

    @Override
    public ReclaimedLeases reclaimLeases(String topic, int max) {
        return leases.expireLeases(topic, max);
    }

    // ---------------------------------------------------------------- producer changes (ProducerChanges)

    @Override
    public Job cancel(JobRef ref) {
        return changes.cancel(ref);
    }

    @Override
    public Job reschedule(JobRef ref, Long delayMs, Long runAtMs) {
        return changes.reschedule(ref, delayMs, runAtMs);
    }

    // ---------------------------------------------------------------- notifications (Notifications)

    @Override
    public AutoCloseable subscribe(StoreListener listener) {
        return notifications.add(listener);
    }

    @Override
    public void publishBroadcast(Job job) {
        String json = codec.toJson(job);
        calls.call("publish broadcast", () -> redis.publish(RedisKeys.BROADCAST, json));
    }

    // ---------------------------------------------------------------- outbox (OutboxStreams)

    @Override
    public List<OutboxEntry> readOutbox(int max) {
        return outbox.read(max);
    }

    @Override
    public void deleteOutbox(List<OutboxEntry> entries) {
        outbox.delete(entries);
    }

    @Override
    public void quarantineOutbox(List<OutboxEntry> entries) {
        outbox.quarantine(entries);
    }

    @Override
    public long outboxSize() {
        return outbox.outboxSize();
    }

    @Override
    public long quarantineSize() {
        return outbox.quarantineSize();
    }

    // ---------------------------------------------------------------- operator views (RedisOperatorViews)

    @Override
    public long[] dueForecast(String topic, long fromMs, long bucketMs, int buckets) {
        return calls.call("count the due forecast", () -> views.dueForecast(topic, fromMs, bucketMs, buckets));
    }

    @Override
    public List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        return calls.call("list the leases in flight", () -> views.leasesInFlight(topic, limit));
    }

    @Override
    public void addHistory(List<TopicMinute> increments) {
        calls.call("add to the topic history", () -> {
            views.addHistory(increments);
            return null;
        });
    }

    @Override
    public List<TopicMinute> history(String topic, long fromMinute, long toMinute) {
        return calls.call("read the topic history", () -> views.history(topic, fromMinute, toMinute));
    }

    /** The circuits of callback origins, in {@code dq:circuits} ({@link RedisCircuitBreakers}). */
    @Override
    public CircuitBreakers circuitBreakers() {
        return breakers;
    }

    /** Tenants and API tokens under {@code dq:{tenancy}:*} ({@link RedisTenantRegistry}). */
    @Override
    public TenantRegistry tenants() {
        return tenants;
    }

    /** Token buckets, one key each ({@link RedisRateLimiters}). */
    @Override
    public RateLimiters rateLimiters() {
        return rateLimiters;
    }

    /** Recurring schedules beside each topic's partition 0 ({@link RedisScheduleStore}). */
    @Override
    public ScheduleStore schedules() {
        return schedules;
    }

    // ---------------------------------------------------------------- the server

    @Override
    public long now() {
        return calls.call("read the clock", () -> (Long) calls.scripts().eval(Op.NOW, NOW_KEYS, List.of()));
    }

    /** PING, for the health check. */
    public String ping() {
        return calls.call("ping", redis::ping);
    }

    @Override
    public void close() {
        indexing.close();
        trimmer.close();
        registry.close();
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

    /** {@code list_jobs.lua} on each partition, merged ({@link RedisJobListing}). */
    @Override
    public JobPage listJobs(JobQuery query) {
        return calls.call("list jobs", () -> listing.list(query));
    }
}
