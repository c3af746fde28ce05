package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Delivery;
import io.delayq.core.EnqueueCoalescer;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobState;
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
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
import io.delayq.core.history.OperatorViewArguments;
import io.delayq.postgres.Rows.Counts;
import io.delayq.postgres.Rows.ForecastBucket;
import io.delayq.postgres.Rows.Created;
import io.delayq.postgres.Rows.Extended;
import io.delayq.postgres.Rows.Reserved;
import io.delayq.postgres.Rows.Stored;
import io.delayq.postgres.Rows.Targeted;
import io.dropwizard.jackson.Jackson;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The {@link JobStore} on PostgreSQL: one statement per transition ({@link JobTransitions}, SQL files that mirror the
 * Redis store's Lua scripts), the database's clock, partial indexes per state, sharded counters for stats, LISTEN /
 * NOTIFY for wake-ups and broadcasts, and a background reaper for finished jobs. storage-postgres/README.md has the
 * schema and which statement uses which index.
 */
public final class PostgresJobStore implements JobStore {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresJobStore.class);
    /**
     * Jobs per enqueue statement (or COPY transaction, {@link CopyEnqueue}): a whole API batch (at most 1,000) is one,
     * so one commit and one WAL flush; larger lists are split to bound its size (payloads up to 64 KiB each) and its
     * lock set.
     */
    static final int ENQUEUE_CHUNK = 1_000;
    private static final int MAX_RESERVE = 10_000;
    private static final int REAPER_STATEMENTS_PER_PASS = 10;
    /** Compare-and-set rounds of one settings update before it gives up (each lost round means another update won). */
    private static final int SETTINGS_UPDATE_ROUNDS = 50;
    private static final Comparator<JobRef> REF_ORDER = Comparator.comparing(JobRef::topic).thenComparing(JobRef::id);

    private final JobTransitions transitions;
    private final BatchTransitions batches;
    private final JobQueries queries;
    private final PostgresCircuitBreakers circuits;
    private final PostgresStoreOptions options;
    private final ObjectMapper mapper = Jackson.newObjectMapper();
    private final Notifications notifications;
    private final Set<String> knownTopics = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService reaper;
    private final EnqueueCoalescer coalescer = new EnqueueCoalescer("PostgreSQL", this::enqueue);
    private final ReserveCoalescer reserves = new ReserveCoalescer(MAX_RESERVE, this::reserveNow);
    private volatile Runnable onClose = () -> { };

    /**
     * A store on a database whose schema is migrated ({@link SchemaMigrations#apply}).
     *
     * @param dataSource  pooled connections for the statements
     * @param listen      opens the dedicated LISTEN connection
     */
    PostgresJobStore(DataSource dataSource, Notifications.Connector listen, PostgresStoreOptions options) {
        Jdbi jdbi = Jdbi.create(dataSource).installPlugin(new SqlObjectPlugin()).installPlugin(new PostgresPlugin());
        JobRowMapper jobs = new JobRowMapper(mapper);
        Rows.register(jdbi, jobs);
        this.transitions = jdbi.onDemand(JobTransitions.class);
        this.batches = new BatchTransitions(dataSource, jobs);
        this.queries = jdbi.onDemand(JobQueries.class);
        this.circuits = new PostgresCircuitBreakers(jdbi);
        this.options = options;
        this.notifications = new Notifications(listen, mapper);
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-postgres-reaper");
            t.setDaemon(true);
            return t;
        });
        long every = options.reaperInterval().toMillis();
        reaper.scheduleWithFixedDelay(this::reap, every, every, TimeUnit.MILLISECONDS);
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
        if (jobs.isEmpty()) {
            return List.of();
        }
        // The first occurrence of each id is written; a repeat in the same batch is answered from it, as a repeat of
        // a stored job would be.
        Map<JobRef, Integer> firsts = new LinkedHashMap<>();
        String[] fingerprints = new String[jobs.size()]; // a SHA-256 each: computed once
        String checkedTopic = null; // a batch is mostly of one topic: its pattern is matched once, not once per job
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            if (!job.topic().equals(checkedTopic)) {
                checkedTopic = JobRules.checkTopic(job.topic());
            }
            JobRules.checkId(job.id());
            firsts.putIfAbsent(job.ref(), i);
            fingerprints[i] = job.fingerprint();
        }
        registerTopics(jobs);
        // Sorted, so that concurrent batches take row locks in one order and never deadlock.
        List<JobRef> refs = new ArrayList<>(firsts.keySet());
        refs.sort(REF_ORDER);
        Map<JobRef, Job> stored = new HashMap<>();
        Map<JobRef, String> storedFingerprints = new HashMap<>();
        Set<JobRef> created = new HashSet<>();
        List<JobRef> pending = refs;
        for (int round = 0; !pending.isEmpty(); round++) {
            if (round == 3) {
                throw new StoreException(StoreStatus.UNAVAILABLE, "PostgreSQL did not enqueue: " + pending.size()
                        + " job id(s) were neither new nor found three times in a row (finished jobs reaped meanwhile?)");
            }
            for (int from = 0; from < pending.size(); from += ENQUEUE_CHUNK) {
                List<JobRef> chunk = pending.subList(from, Math.min(pending.size(), from + ENQUEUE_CHUNK));
                for (Created c : insert(chunk, firsts, jobs, fingerprints)) {
                    JobRef ref = new JobRef(c.topic(), c.id());
                    int first = firsts.get(ref);
                    created.add(ref);
                    stored.put(ref, createdJob(jobs.get(first), c.runAt(), c.createdAt()));
                    storedFingerprints.put(ref, fingerprints[first]);
                }
            }
            List<JobRef> existing = pending.stream().filter(r -> !created.contains(r)).toList();
            if (!existing.isEmpty()) {
                for (Stored s : call("read existing jobs", () -> queries.findStored(
                        existing.stream().map(JobRef::topic).toArray(String[]::new),
                        existing.stream().map(JobRef::id).toArray(String[]::new)))) {
                    stored.put(s.job().ref(), s.job());
                    storedFingerprints.put(s.job().ref(), s.fingerprint());
                }
            }
            pending = existing.stream().filter(r -> !stored.containsKey(r)).toList();
        }
        List<EnqueueResult> results = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            JobRef ref = job.ref();
            Job current = stored.get(ref);
            boolean createdHere = created.contains(ref) && firsts.get(ref) == i;
            if (createdHere) {
                results.add(new EnqueueResult(StoreStatus.OK, true, current));
            } else if (storedFingerprints.get(ref).equals(fingerprints[i])) {
                results.add(new EnqueueResult(StoreStatus.OK, false, current));
            } else {
                results.add(new EnqueueResult(StoreStatus.CONFLICT, false, current));
            }
        }
        return results;
    }

    private List<Created> insert(List<JobRef> chunk, Map<JobRef, Integer> firsts, List<NewJob> jobs,
                                 String[] jobFingerprints) {
        List<NewJob> ordered = new ArrayList<>(chunk.size());
        List<String> fingerprints = new ArrayList<>(chunk.size());
        for (JobRef ref : chunk) {
            int index = firsts.get(ref);
            ordered.add(jobs.get(index));
            fingerprints.add(jobFingerprints[index]);
        }
        Map<String, Object[]> arrays = EnqueueBinds.of(ordered, fingerprints, mapper);
        return callDirect("enqueue", () -> batches.enqueue(arrays));
    }

    private static Job createdJob(NewJob job, long runAt, long createdAt) {
        return new Job(job.topic(), job.id(), job.payload(), runAt, JobState.SCHEDULED, 0, job.maxAttempts(),
                job.backoff(), job.callback(), job.timeoutMs(), job.broadcast(), job.delivery(), createdAt, null, null,
                List.of(), job.trace(), job.onDead());
    }

    private void registerTopics(List<NewJob> jobs) {
        Set<String> unknown = new HashSet<>();
        for (NewJob job : jobs) {
            if (!knownTopics.contains(job.topic())) {
                unknown.add(job.topic());
            }
        }
        if (!unknown.isEmpty()) {
            String[] topics = unknown.stream().sorted().toArray(String[]::new);
            call("register topics", () -> {
                queries.registerTopics(topics);
                return null;
            });
            knownTopics.addAll(unknown);
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<Job> find(JobRef ref) {
        return call("find", () -> queries.find(ref.topic(), ref.id()));
    }

    @Override
    public long nextLeaseDeadline(String topic) {
        Long next = call("read the next lease deadline", () -> queries.nextLeaseDeadline(topic));
        return next == null ? -1 : next;
    }

    @Override
    public long nextDueAt(String topic, Delivery lane) {
        Long next = call("read the next run time", () -> queries.nextDueAt(topic, lane == Delivery.PUSH));
        return next == null ? -1 : next;
    }

    @Override
    public Set<String> topics() {
        return new HashSet<>(call("list topics", queries::topics));
    }

    @Override
    public TopicStats stats(String topic) {
        Counts counts = call("read stats", () -> queries.counts(topic));
        return new TopicStats(topic, counts.scheduled(), counts.leased(), counts.dead(), counts.succeeded(),
                counts.nextRunAt() == null ? -1 : counts.nextRunAt());
    }

    @Override
    public TopicSettings settings(String topic) {
        Optional<String> json = call("read settings", () -> queries.settings(topic));
        return json.isEmpty() ? TopicSettings.empty() : parseSettings(topic, json.get());
    }

    @Override
    public void putSettings(String topic, TopicSettings settings) {
        JobRules.checkTopic(topic);
        String json = encodeSettings(topic, settings);
        call("store settings", () -> {
            queries.putSettings(topic, json);
            return null;
        });
        knownTopics.add(topic);
    }

    /**
     * Compare-and-set on the topic's settings row ({@link JobQueries#compareAndSetSettings}): no lock is held while
     * {@code change} runs; a lost round reads again and applies {@code change} anew.
     */
    @Override
    public TopicSettings updateSettings(String topic, UnaryOperator<TopicSettings> change) {
        JobRules.checkTopic(topic);
        for (int round = 0; round < SETTINGS_UPDATE_ROUNDS; round++) {
            Optional<String> read = call("read settings", () -> queries.settings(topic));
            TopicSettings next = change.apply(read.isEmpty() ? TopicSettings.empty() : parseSettings(topic, read.get()));
            String json = encodeSettings(topic, next);
            boolean written = call("update settings",
                    () -> queries.compareAndSetSettings(topic, read.orElse(null), json)).isPresent();
            if (written) {
                knownTopics.add(topic);
                return parseSettings(topic, json);
            }
        }
        throw new StoreException(StoreStatus.CONFLICT, "the settings of topic " + topic + " kept changing under this"
                + " update (" + SETTINGS_UPDATE_ROUNDS + " concurrent updates won); send it again");
    }

    private TopicSettings parseSettings(String topic, String json) {
        try {
            return mapper.readValue(json, TopicSettings.class);
        } catch (JsonProcessingException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the stored settings of topic " + topic
                    + " are not readable (" + e.getOriginalMessage() + "); store them again", e);
        }
    }

    private String encodeSettings(String topic, TopicSettings settings) {
        try {
            return mapper.writeValueAsString(settings);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode the settings of topic " + topic + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    // ---------------------------------------------------------------- leases

    @Override
    public ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1");
        }
        return reserves.reserve(topic, lane, Math.min(MAX_RESERVE, max), defaultLeaseMs);
    }

    /** One reserve statement (for one caller, or for several that {@link ReserveCoalescer} lets share it). */
    private ReserveResult reserveNow(String topic, Delivery lane, int max, long defaultLeaseMs) {
        List<Reserved> rows = callDirect("reserve", () ->
                batches.reserve(topic, lane == Delivery.PUSH, max, defaultLeaseMs));
        List<Lease> leases = new ArrayList<>(rows.size());
        for (Reserved r : rows) {
            if (r.job() != null) {
                leases.add(new Lease(r.job(), r.token(), r.deadline()));
            } else if (r.id() != null) {
                failUnreadable(new LeaseRef(new JobRef(topic, r.id()), r.token()), r.unreadable());
            }
        }
        Reserved any = rows.get(0);
        return new ReserveResult(leases, any.next() == null ? -1 : any.next(), any.now());
    }

    /**
     * A leased row this code cannot decode costs the other leases nothing: it is made DEAD at once (its attempt cannot
     * be made), so that it reaches the outbox, and from there the archiver's quarantine, instead of coming back at
     * every lease expiry. Should the database fail now, the lease is left to expire and a later reserve tries again.
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

    @Override
    public List<StoreStatus> ack(List<LeaseRef> leases) {
        StoreStatus[] statuses = new StoreStatus[leases.size()];
        // A job named twice is acked in two rounds, in the caller's order, as sequential calls would be: one
        // statement cannot update a row twice.
        List<Integer> remaining = new ArrayList<>();
        for (int i = 0; i < leases.size(); i++) {
            remaining.add(i);
        }
        while (!remaining.isEmpty()) {
            Set<JobRef> inRound = new HashSet<>();
            List<Integer> round = new ArrayList<>();
            List<Integer> later = new ArrayList<>();
            for (int i : remaining) {
                (inRound.add(leases.get(i).job()) ? round : later).add(i);
            }
            round.sort(Comparator.comparing(i -> leases.get(i).job(), REF_ORDER));
            String[] topics = round.stream().map(i -> leases.get(i).job().topic()).toArray(String[]::new);
            String[] ids = round.stream().map(i -> leases.get(i).job().id()).toArray(String[]::new);
            Long[] tokens = round.stream().map(i -> leases.get(i).token()).toArray(Long[]::new);
            List<String> answers = callDirect("ack", () -> batches.ack(topics, ids, tokens, options.historySize()));
            for (int k = 0; k < round.size(); k++) {
                statuses[round.get(k)] = StoreStatus.valueOf(answers.get(k));
            }
            remaining = later;
        }
        return List.of(statuses);
    }

    @Override
    public StoreStatus nack(LeaseRef lease, Failure failure) {
        JobRef ref = lease.job();
        String status = call("nack", () -> transitions.nack(ref.topic(), ref.id(), lease.token(),
                failure.isDead() ? -1 : failure.retryDelayMs(), failure.error(), failure.httpStatus(),
                failure.held(), options.historySize()));
        return StoreStatus.valueOf(status);
    }

    @Override
    public long extend(LeaseRef lease, long leaseMs) {
        if (leaseMs < 1) {
            throw new IllegalArgumentException("leaseMs must be positive");
        }
        JobRef ref = lease.job();
        Extended answer = call("extend", () -> transitions.extend(ref.topic(), ref.id(), lease.token(), leaseMs));
        StoreException.check(StoreStatus.valueOf(answer.status()), ref, "extended");
        return answer.deadlineMs();
    }

    @Override
    public int expireLeases(String topic, int max) {
        return call("expire leases", () -> transitions.expire(topic, max, options.historySize(),
                EXPIRED_LAST_ATTEMPT_RETRIES));
    }

    // ---------------------------------------------------------------- producer changes

    @Override
    public Job cancel(JobRef ref) {
        return changed(ref, "cancelled", call("cancel", () -> transitions.cancel(ref.topic(), ref.id())));
    }

    @Override
    public Job reschedule(JobRef ref, Long delayMs, Long runAtMs) {
        if ((delayMs == null) == (runAtMs == null)) {
            throw new IllegalArgumentException("exactly one of delayMs and runAtMs must be set");
        }
        return changed(ref, "rescheduled",
                call("reschedule", () -> transitions.reschedule(ref.topic(), ref.id(), delayMs, runAtMs,
                        options.historySize())));
    }

    /** The job a cancel or reschedule changed, or the StoreException saying why it did not. */
    private static Job changed(JobRef ref, String operation, Optional<Targeted> answer) {
        if (answer.isEmpty()) {
            StoreException.check(StoreStatus.NOT_FOUND, ref, operation);
        }
        if (answer.get().job() == null) {
            StoreException.check(StoreStatus.NOT_IN_STATE, ref, operation);
        }
        return answer.get().job();
    }

    // ---------------------------------------------------------------- notifications

    @Override
    public AutoCloseable subscribe(StoreListener listener) {
        return notifications.add(listener);
    }

    @Override
    public void publishBroadcast(Job job) {
        String json = json(job, job.ref());
        call("publish a broadcast", () -> queries.publishBroadcast(json));
    }

    // ---------------------------------------------------------------- outbox

    @Override
    public List<OutboxEntry> readOutbox(int max) {
        return call("read the outbox", () -> queries.readOutbox(max));
    }

    @Override
    public void deleteOutbox(List<OutboxEntry> entries) {
        Long[] seqs = seqs(entries);
        call("delete outbox entries", () -> queries.deleteOutbox(seqs));
    }

    /** Moves the rows, whole, to {@code delayq_quarantine} (V2). */
    @Override
    public void quarantineOutbox(List<OutboxEntry> entries) {
        Long[] seqs = seqs(entries);
        String[] reasons = entries.stream()
                .map(e -> e.isReadable() ? "quarantined by request" : e.unreadable().reason())
                .toArray(String[]::new);
        call("quarantine outbox entries", () -> queries.quarantineOutbox(seqs, reasons));
    }

    @Override
    public long quarantineSize() {
        return call("read the quarantine size", queries::quarantineSize);
    }

    private static Long[] seqs(List<OutboxEntry> entries) {
        Long[] seqs = new Long[entries.size()];
        for (int i = 0; i < seqs.length; i++) {
            String entryId = entries.get(i).entryId();
            try {
                seqs[i] = Long.parseLong(entryId);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + entryId + "' is not an outbox entry id of this store", e);
            }
        }
        return seqs;
    }

    @Override
    public long outboxSize() {
        return call("read the outbox size", queries::outboxSize);
    }

    @Override
    public long now() {
        return call("read the clock", queries::now);
    }

    @Override
    public void close() {
        reaper.shutdownNow();
        notifications.close();
        onClose.run();
    }

    /** {@code delayq_circuits} (V9), on this store's pool. */
    @Override
    public CircuitBreakers circuitBreakers() {
        return circuits;
    }

    // ---------------------------------------------------------------- operator views

    /** One statement: a range scan of the due index per lane, bounded by the window, grouped into buckets. */
    @Override
    public long[] dueForecast(String topic, long fromMs, long bucketMs, int buckets) {
        long toMs = OperatorViewArguments.forecastEnd(topic, fromMs, bucketMs, buckets);
        List<ForecastBucket> rows = call("count the due forecast",
                () -> queries.dueForecast(topic, fromMs, toMs, bucketMs));
        long[] forecast = new long[buckets];
        for (ForecastBucket row : rows) {
            forecast[row.bucket()] = row.jobs();
        }
        return forecast;
    }

    @Override
    public List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        OperatorViewArguments.checkLeaseLimit(topic, limit);
        return call("list the leases in flight", () -> queries.leasesInFlight(topic, limit));
    }

    /**
     * One statement for the whole call: every minute's counts added to its row ({@code JobQueries/addHistory.sql}),
     * repeats merged and rows sorted first, so that concurrent instances lock rows in one order.
     */
    @Override
    public void addHistory(List<TopicMinute> increments) {
        List<TopicMinute> minutes = OperatorViewArguments.mergedIncrements(increments);
        if (minutes.isEmpty()) {
            return;
        }
        int n = minutes.size();
        String[] topics = new String[n];
        Long[] starts = new Long[n];
        Long[] enqueued = new Long[n];
        Long[] delivered = new Long[n];
        Long[] failed = new Long[n];
        Long[] dead = new Long[n];
        Long[] lateness = new Long[n * LatenessBuckets.COUNT];
        for (int i = 0; i < n; i++) {
            TopicMinute m = minutes.get(i);
            topics[i] = m.topic();
            starts[i] = m.minute();
            enqueued[i] = m.enqueued();
            delivered[i] = m.delivered();
            failed[i] = m.failed();
            dead[i] = m.dead();
            for (int b = 0; b < LatenessBuckets.COUNT; b++) {
                lateness[i * LatenessBuckets.COUNT + b] = m.lateness()[b];
            }
        }
        call("add to the topic history", () -> {
            queries.addHistory(topics, starts, enqueued, delivered, failed, dead, lateness, LatenessBuckets.COUNT);
            return null;
        });
    }

    @Override
    public List<TopicMinute> history(String topic, long fromMinute, long toMinute) {
        long first = OperatorViewArguments.firstMinute(topic, fromMinute, toMinute);
        List<TopicMinute> rows = call("read the topic history", () -> queries.history(topic, first, toMinute));
        return rows.stream().filter(m -> !m.isEmpty()).toList();
    }

    // ---------------------------------------------------------------- reaper

    /**
     * Drops finished jobs past the retention in bounded batches, minutes of the topic history older than
     * {@link TopicMinute#RETENTION_MS} likewise, and old broadcast rows. A failed pass is logged and
     * retried at the next one: nothing depends on the reaper but the table's size.
     */
    void reap() {
        try {
            long retention = options.finishedRetention().toMillis();
            for (int i = 0; i < REAPER_STATEMENTS_PER_PASS; i++) {
                if (transitions.reap(retention, options.reaperBatch()) < options.reaperBatch()) {
                    break;
                }
            }
            for (int i = 0; i < REAPER_STATEMENTS_PER_PASS; i++) {
                if (transitions.reapHistory(TopicMinute.RETENTION_MS, options.reaperBatch()) < options.reaperBatch()) {
                    break;
                }
            }
            queries.reapBroadcasts(options.reaperBatch());
        } catch (JdbiException e) {
            LOG.debug("reaper pass failed, retried at the next one: {}", e.toString());
        }
    }

    // ---------------------------------------------------------------- helpers

    private String json(Object value, JobRef ref) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode job " + ref + ": " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Runs one statement; connection and server failures become {@link StoreStatus#UNAVAILABLE}. A deadlock or
     * serialization failure (the statement did not happen) is retried twice.
     */
    static <T> T call(String operation, Supplier<T> action) {
        for (int attempt = 1; ; attempt++) {
            try {
                return action.get();
            } catch (JdbiException | BatchTransitions.Failure e) {
                if (attempt < 3 && isRetryable(e)) {
                    continue;
                }
                throw new StoreException(StoreStatus.UNAVAILABLE, "PostgreSQL did not " + operation + ": "
                        + rootMessage(e) + " (is PostgreSQL running and reachable?)", e);
            }
        }
    }

    /** {@link #call} for a statement on plain JDBC ({@link BatchTransitions}). */
    private static <T> T callDirect(String operation, BatchTransitions.Call<T> action) {
        return call(operation, () -> {
            try {
                return action.run();
            } catch (SQLException e) {
                throw new BatchTransitions.Failure(e);
            }
        });
    }

    private static boolean isRetryable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().equals("40P01") || sql.getSQLState().equals("40001"))) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }
}
