package io.delayq.postgres;

import com.fasterxml.jackson.databind.ObjectMapper;
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
import io.delayq.core.archive.TopicScope;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.history.TopicMinute;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.tenant.TenantRegistry;
import io.dropwizard.jackson.Jackson;
import org.jdbi.v3.core.Jdbi;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The {@link JobStore} on PostgreSQL: one statement per transition ({@link JobTransitions}, SQL files that mirror the
 * Redis store's Lua scripts), the database's clock, partial indexes per state, sharded counters for stats, LISTEN /
 * NOTIFY for wake-ups and broadcasts, and a background reaper for finished jobs. storage-postgres/README.md has the
 * schema and which statement uses which index.
 *
 * <p>This class only wires the parts and hands each call to the one that does it: {@link IdempotentEnqueue},
 * {@link JobReads}, {@link TopicSettingsStore}, {@link LeaseTransitions}, {@link ProducerChanges},
 * {@link Notifications}, {@link Outbox}, {@link PostgresOperatorViews}, {@link PostgresCircuitBreakers},
 * {@link PostgresTenantRegistry}, {@link PostgresRateLimiters} and {@link Reaper}.
 */
public final class PostgresJobStore implements JobStore {
    private final IdempotentEnqueue enqueues;
    private final EnqueueCoalescer coalescer;
    private final JobReads reads;
    private final TopicSettingsStore settings;
    private final LeaseTransitions leases;
    private final ProducerChanges changes;
    private final Notifications notifications;
    private final Outbox outbox;
    private final PostgresOperatorViews views;
    private final PostgresJobListing listing;
    private final PostgresCircuitBreakers circuits;
    private final PostgresTenantRegistry tenants;
    private final PostgresRateLimiters rateLimiters;
    private final PostgresScheduleStore schedules;
    private final Reaper reaper;
    private final JobQueries queries;
    private final KnownTopics knownTopics;
    private volatile Runnable onClose = () -> { };

    /**
     * A store on a database whose schema is migrated ({@link SchemaMigrations#apply}).
     *
     * @param dataSource  pooled connections for the statements
     * @param listen      opens the dedicated LISTEN connection
     */
    PostgresJobStore(DataSource dataSource, Notifications.Connector listen, PostgresStoreOptions options) {
        ObjectMapper mapper = Jackson.newObjectMapper();
        Jdbi jdbi = StatementFiles.jdbi(dataSource);
        JobRowMapper jobs = new JobRowMapper(mapper);
        Rows.register(jdbi, jobs);
        JobTransitions transitions = jdbi.onDemand(JobTransitions.class);
        BatchTransitions batches = new BatchTransitions(dataSource, jobs);
        JobQueries queries = jdbi.onDemand(JobQueries.class);
        KnownTopics topics = new KnownTopics(queries);
        this.queries = queries;
        this.knownTopics = topics;
        this.enqueues = new IdempotentEnqueue(batches, queries, topics, mapper);
        this.coalescer = new EnqueueCoalescer("PostgreSQL", enqueues::enqueue);
        this.reads = new JobReads(queries);
        this.settings = new TopicSettingsStore(queries, topics, mapper);
        this.leases = new LeaseTransitions(batches, transitions, options);
        this.changes = new ProducerChanges(transitions, options);
        this.notifications = new Notifications(listen, mapper, queries);
        this.outbox = new Outbox(queries);
        this.views = new PostgresOperatorViews(queries);
        this.listing = new PostgresJobListing(queries);
        this.circuits = new PostgresCircuitBreakers(jdbi);
        this.tenants = new PostgresTenantRegistry(jdbi, mapper);
        this.rateLimiters = new PostgresRateLimiters(jdbi);
        this.schedules = new PostgresScheduleStore(jdbi, topics, mapper);
        this.reaper = new Reaper(transitions, queries, rateLimiters, options);
    }

    /**
     * Connects to {@code jdbc:postgresql://…} with a small pool, applies missing migrations, and returns a ready store
     * that closes the pool when it closes. For tools, tests and the benchmark; the service builds its store through
     * {@link PostgresJobStoreFactory}.
     */
    public static PostgresJobStore connect(String jdbcUrl, String user, String password, PostgresStoreOptions options) {
        PostgresJobStoreFactory factory = new PostgresJobStoreFactory();
        factory.getDatabase().setUrl(jdbcUrl);
        factory.getDatabase().setUser(user);
        factory.getDatabase().setPassword(password);
        factory.setOptions(options);
        return factory.connect();
    }

    void onClose(Runnable action) {
        this.onClose = action;
    }

    // ---------------------------------------------------------------- enqueue

    /**
     * One job; concurrent callers share statements (see {@link EnqueueCoalescer}), so that eight producers cost one
     * commit, one WAL flush, instead of eight.
     */
    @Override
    public EnqueueResult enqueue(NewJob job) {
        return coalescer.submit(job);
    }

    @Override
    public List<EnqueueResult> enqueue(List<NewJob> jobs) {
        return enqueues.enqueue(jobs);
    }

    // ---------------------------------------------------------------- reads

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
        return reads.topics();
    }

    /** One statement for every topic ({@code times_many.sql}). */
    @Override
    public Map<String, TopicTimes> times(Collection<String> topics) {
        return reads.times(topics);
    }

    @Override
    public TopicStats stats(String topic) {
        return reads.stats(topic);
    }

    /** One statement for every topic ({@code stats_many.sql}). */
    @Override
    public Map<String, TopicStats> stats(Collection<String> topics) {
        return reads.stats(topics);
    }

    @Override
    public long now() {
        return reads.now();
    }

    @Override
    public TopicSettings settings(String topic) {
        return settings.settings(topic);
    }

    // ---- topic pages and forgetting (issue 26, finding 12)

    /** One keyset query in name order ({@code topics_page.sql}). */
    @Override
    public List<String> topics(String after, int limit) {
        return PostgresCalls.call("list topics", () -> queries.topics(after, limit));
    }

    /** One statement ({@code topics_among.sql}): the primary key, probed once per name. */
    @Override
    public Set<String> topicsAmong(Collection<String> names) {
        Set<String> asked = new LinkedHashSet<>(names);
        if (asked.isEmpty()) {
            return new LinkedHashSet<>();
        }
        Set<String> found = new HashSet<>(PostgresCalls.call("find topics",
                () -> queries.topicsAmong(asked.toArray(String[]::new))));
        asked.retainAll(found);
        return asked;
    }

    /** One range of V22's {@code delayq_topics_by_name} ({@code topics_starting_with.sql}): the cost of the page. */
    @Override
    public List<String> topicsStartingWith(String prefix, String after, int limit) {
        JobStore.requirePrefix(prefix);
        String upper = TopicScope.successor(prefix);
        if (upper == null || limit <= 0) {
            return List.of(); // only the last code point there is: no topic (ASCII, JobRules) starts with it
        }
        return PostgresCalls.call("list topics by prefix",
                () -> queries.topicsStartingWith(prefix, upper, after == null ? "" : after, limit));
    }

    /** One statement for every topic ({@code settings_many.sql}). */
    @Override
    public Map<String, TopicSettings> settings(Collection<String> topics) {
        Map<String, TopicSettings> out = new java.util.LinkedHashMap<>();
        topics.forEach(t -> out.put(t, TopicSettings.empty()));
        if (!topics.isEmpty()) {
            PostgresCalls.call("read settings", () -> queries.settingsOf(topics.toArray(String[]::new)))
                    .forEach(row -> out.put(row.topic(), settings.parse(row.topic(), row.settings())));
        }
        return out;
    }

    @Override
    public boolean deleteTopic(String topic) {
        boolean deleted = PostgresCalls.call("delete topic " + topic, () -> queries.deleteTopic(topic)).isPresent();
        knownTopics.forget(topic);
        return deleted || !busy(topic);
    }

    @Override
    public boolean forgetIfIdle(String topic, long idleMs) {
        boolean due = PostgresCalls.call("mark idle topic " + topic, () -> queries.markIdle(topic, idleMs))
                .orElse(false);
        return due && PostgresCalls.call("delete topic " + topic, () -> queries.deleteTopic(topic)).isPresent();
    }

    private boolean busy(String topic) {
        TopicStats stats = stats(topic);
        return stats.scheduled() > 0 || stats.leased() > 0;
    }

    @Override
    public void putSettings(String topic, TopicSettings settings) {
        this.settings.put(topic, settings);
    }

    @Override
    public TopicSettings updateSettings(String topic, UnaryOperator<TopicSettings> change) {
        return settings.update(topic, change);
    }

    // ---------------------------------------------------------------- leases

    @Override
    public ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs) {
        return leases.reserve(topic, lane, max, defaultLeaseMs, expiresAfterMs);
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
        return leases.expire(topic, max);
    }

    // ---------------------------------------------------------------- producer changes

    @Override
    public Job cancel(JobRef ref) {
        return changes.cancel(ref);
    }

    @Override
    public Job reschedule(JobRef ref, Long delayMs, Long runAtMs) {
        return changes.reschedule(ref, delayMs, runAtMs);
    }

    // ---------------------------------------------------------------- notifications

    @Override
    public AutoCloseable subscribe(StoreListener listener) {
        return notifications.add(listener);
    }

    @Override
    public void publishBroadcast(Job job) {
        notifications.publish(job);
    }

    // ---------------------------------------------------------------- outbox

    @Override
    public List<OutboxEntry> readOutbox(int max) {
        return outbox.read(max);
    }

    @Override
    public void deleteOutbox(List<OutboxEntry> entries) {
        outbox.delete(entries);
    }

    /** Moves the rows, whole, to {@code delayq_quarantine} (V2). */
    @Override
    public void quarantineOutbox(List<OutboxEntry> entries) {
        outbox.quarantine(entries);
    }

    @Override
    public long quarantineSize() {
        return outbox.quarantineSize();
    }

    @Override
    public long outboxSize() {
        return outbox.size();
    }

    // ---------------------------------------------------------------- circuit breakers

    /** {@code delayq_circuits} (V9), on this store's pool. */
    @Override
    public CircuitBreakers circuitBreakers() {
        return circuits;
    }

    // ---------------------------------------------------------------- tenancy

    /** {@code delayq_tenancy}, {@code delayq_tenants}, {@code delayq_tokens} (V15), on this store's pool. */
    @Override
    public TenantRegistry tenants() {
        return tenants;
    }

    /** {@code delayq_rate_buckets} (V15), on this store's pool; idle buckets dropped by the reaper. */
    @Override
    public RateLimiters rateLimiters() {
        return rateLimiters;
    }

    /** {@code delayq_schedules} (V17), on this store's pool ({@link PostgresScheduleStore}). */
    @Override
    public ScheduleStore schedules() {
        return schedules;
    }

    // ---------------------------------------------------------------- operator views

    @Override
    public long[] dueForecast(String topic, long fromMs, long bucketMs, int buckets) {
        return views.dueForecast(topic, fromMs, bucketMs, buckets);
    }

    @Override
    public List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        return views.leasesInFlight(topic, limit);
    }

    @Override
    public void addHistory(List<TopicMinute> increments) {
        views.addHistory(increments);
    }

    @Override
    public List<TopicMinute> history(String topic, long fromMinute, long toMinute) {
        return views.history(topic, fromMinute, toMinute);
    }

    // ---------------------------------------------------------------- reaper and close

    /** One reaper pass now (tests). */
    void reap() {
        reaper.reap();
    }

    @Override
    public void close() {
        reaper.close();
        notifications.close();
        onClose.run();
    }

    /** {@code list_jobs.sql}: one statement along the topic's indexes ({@link PostgresJobListing}). */
    @Override
    public JobPage listJobs(JobQuery query) {
        return listing.list(query);
    }
}
