package io.delayq.service.jobs;

import com.codahale.metrics.Meter;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Job;
import io.delayq.core.JobIds;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.StoreException;
import io.delayq.core.TopicSettings;
import io.delayq.core.TraceContext;
import io.delayq.service.api.CallbackSpec;
import io.delayq.service.api.HeaderValues;
import io.delayq.service.history.TopicActivity;
import io.delayq.service.http.Times;
import io.dropwizard.util.Duration;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Turns producer requests into store calls. Every rule is checked before the store is touched, so a refused request
 * changes nothing; rule breaks throw {@link IllegalArgumentException} with a message naming the field.
 */
public final class JobScheduler {
    static final long MIN_TIMEOUT_MS = 100;
    static final long MAX_TIMEOUT_MS = 24L * 3600 * 1000;

    private final JobStore store;
    private final JobRules rules;
    private final PolicyDefaults policy;
    private final Consumer<Callback> callbackCheck;
    private final Meter enqueued;
    private final Consumer<String> topicSeen;
    private final TopicActivity activity;
    private final EnqueueSettings settings;
    private final EnqueueGate gate;

    /**
     * @param store         where jobs go
     * @param rules         the limits: payload, delay and backoff waits, attempts, callback headers, whole job
     * @param policy        service defaults for attempts and lanes
     * @param callbackCheck refuses callbacks the delivery engine would not call, or not call as given (throws
     *                      IllegalArgumentException); see {@link CallbackCheck}
     * @param enqueued      marked once per newly created job
     * @param activity      told how many jobs each call created, per topic (the stored history)
     * @param topicSeen     told about each topic jobs are scheduled in (for per-topic gauges)
     */
    public JobScheduler(JobStore store, JobRules rules, PolicyDefaults policy, Consumer<Callback> callbackCheck,
                        Meter enqueued, Consumer<String> topicSeen, TopicActivity activity) {
        this(store, rules, policy, callbackCheck, enqueued, topicSeen, activity, EnqueueGate.OPEN);
    }

    /** As the other constructor, with {@code gate} admitting jobs after the rules (the tenants' quotas). */
    public JobScheduler(JobStore store, JobRules rules, PolicyDefaults policy, Consumer<Callback> callbackCheck,
                        Meter enqueued, Consumer<String> topicSeen, TopicActivity activity, EnqueueGate gate) {
        this.gate = gate;
        this.store = store;
        this.rules = rules;
        this.policy = policy;
        this.callbackCheck = callbackCheck;
        this.enqueued = enqueued;
        this.activity = activity;
        this.topicSeen = topicSeen;
        this.settings = new EnqueueSettings(store);
    }

    /**
     * The topic's settings were changed through this instance: its next enqueue resolves against the new ones (others
     * read them again within a second; see {@link EnqueueSettings}).
     */
    public void settingsChanged(String topic) {
        settings.changed(topic);
    }

    /**
     * Schedules one job.
     *
     * @throws StoreException CONFLICT when the id is taken by different content
     */
    public EnqueueResult schedule(String topic, ScheduleJobRequest request) {
        return schedule(topic, request, null);
    }

    /**
     * Schedules one job that carries its producer's trace context on to its deliveries.
     *
     * @param trace the request's W3C trace context, or {@code null}
     * @throws StoreException CONFLICT when the id is taken by different content
     */
    public EnqueueResult schedule(String topic, ScheduleJobRequest request, TraceContext trace) {
        JobRules.checkClientTopic(topic);
        NewJob job = toNewJob(topic, request, settings.of(topic)).withTrace(trace);
        gate.check(topic, job);
        gate.admit(topic, List.of(job));
        EnqueueResult result;
        try {
            result = store.enqueue(job);
        } finally {
            gate.settled(topic, 1);
        }
        StoreException.check(result.status(), job.ref(), "scheduled");
        counted(topic, List.of(result));
        return result;
    }

    /** One outcome of a batch: the store's result, or why the item was refused before reaching the store. */
    public record BatchOutcome(String id, EnqueueResult result, IllegalArgumentException refused) {
    }

    /** Schedules many jobs of one topic with one store call; refused items do not stop the others. */
    public List<BatchOutcome> scheduleBatch(String topic, List<ScheduleJobRequest> requests) {
        return scheduleBatch(topic, requests, null);
    }

    /**
     * Schedules many jobs of one topic with one store call, each carrying the request's trace context (one producer
     * span sent them all); refused items do not stop the others.
     */
    public List<BatchOutcome> scheduleBatch(String topic, List<ScheduleJobRequest> requests, TraceContext trace) {
        JobRules.checkClientTopic(topic);
        if (requests == null || requests.isEmpty()) {
            throw new IllegalArgumentException("jobs is required: send {\"jobs\": [ … ]} with 1 to "
                    + "the batch limit of jobs");
        }
        TopicSettings settings = this.settings.of(topic);
        List<BatchOutcome> outcomes = new ArrayList<>(requests.size());
        List<NewJob> accepted = new ArrayList<>(requests.size());
        for (ScheduleJobRequest request : requests) {
            try {
                if (request == null) {
                    throw new IllegalArgumentException("a job must be an object, not null");
                }
                NewJob job = toNewJob(topic, request, settings).withTrace(trace);
                gate.check(topic, job);
                accepted.add(job);
                outcomes.add(new BatchOutcome(job.id(), null, null));
            } catch (IllegalArgumentException e) {
                outcomes.add(new BatchOutcome(request == null ? null : request.id(), null, e));
            }
        }
        if (!accepted.isEmpty()) {
            // the gate admits the first n; the others are refused as items (it throws when it admits none)
            EnqueueGate.Admission admission = gate.admit(topic, accepted);
            if (admission.admitted() < accepted.size()) {
                outcomes = refuseBeyond(outcomes, admission);
                accepted = new ArrayList<>(accepted.subList(0, admission.admitted()));
            }
        }
        List<EnqueueResult> results;
        try {
            results = accepted.isEmpty() ? List.of() : store.enqueue(accepted);
        } finally {
            if (!accepted.isEmpty()) {
                gate.settled(topic, accepted.size());
            }
        }
        counted(topic, results);
        var merged = new ArrayList<BatchOutcome>(outcomes.size());
        int next = 0;
        for (BatchOutcome outcome : outcomes) {
            merged.add(outcome.refused() != null ? outcome
                    : new BatchOutcome(outcome.id(), results.get(next++), null));
        }
        return merged;
    }

    /** The outcomes with every accepted job after the first {@code admitted} refused by the gate. */
    private static List<BatchOutcome> refuseBeyond(List<BatchOutcome> outcomes, EnqueueGate.Admission admission) {
        var result = new ArrayList<BatchOutcome>(outcomes.size());
        int seen = 0;
        for (BatchOutcome o : outcomes) {
            boolean beyond = o.refused() == null && seen++ >= admission.admitted();
            result.add(beyond ? new BatchOutcome(o.id(), null, admission.refusal()) : o);
        }
        return result;
    }

    public Job reschedule(JobRef ref, RescheduleRequest request) {
        check(ref);
        if (request == null || (request.delayMs() == null) == (request.runAt() == null)) {
            throw new IllegalArgumentException("send exactly one of delayMs and runAt, e.g. {\"delayMs\": 60000}");
        }
        if (request.delayMs() != null) {
            long delayMs = rules.checkDelay(request.delayMs());
            refuseBeyondExpiry(ref, System.currentTimeMillis() + delayMs);
            return store.reschedule(ref, delayMs, null);
        }
        long runAtMs = rules.checkRunAt(Times.parseRfc3339("runAt", request.runAt()), System.currentTimeMillis());
        refuseBeyondExpiry(ref, runAtMs);
        return store.reschedule(ref, null, runAtMs);
    }

    /** {@link ExpiresAt#refuseMoveBeyond}, for the stored job (none stored: the store's reschedule says NOT_FOUND). */
    private void refuseBeyondExpiry(JobRef ref, long runAtMs) {
        ExpiresAt.refuseMoveBeyond(store.find(ref).map(Job::expiresAt).orElse(null), runAtMs);
    }

    public static JobRef check(JobRef ref) {
        JobRules.checkClientTopic(ref.topic());
        JobRules.checkClientId(ref.id());
        return ref;
    }

    NewJob toNewJob(String topic, ScheduleJobRequest r, TopicSettings settings) {
        String id = r.id() == null ? JobIds.newId() : JobRules.checkProducerId(r.id());
        if (r.payload() == null) {
            throw new IllegalArgumentException("payload is required: any JSON value other than null, "
                    + "e.g. {\"orderId\": 42}");
        }
        String payload = rules.checkPayload(r.payload().json());
        if (r.delayMs() != null && r.runAt() != null) {
            throw new IllegalArgumentException("send delayMs or runAt, not both");
        }
        Long delayMs = null;
        Long runAtMs = null;
        if (r.runAt() != null) {
            runAtMs = rules.checkRunAt(Times.parseRfc3339("runAt", r.runAt()), System.currentTimeMillis());
        } else {
            delayMs = rules.checkDelay(r.delayMs() == null ? 0L : r.delayMs());
        }
        Callback callback = HeaderValues.refuseMask("callback", callback(r.callback()));
        Integer attempts = checkMaxAttempts(r.maxAttempts());
        Backoff backoff = checkBackoff(r.backoff());
        Long timeoutMs = checkTimeout(r.timeout());
        boolean broadcast = Boolean.TRUE.equals(r.broadcast());
        Callback onDead = HeaderValues.refuseMask("onDead", onDead(r.onDead()));
        Delivery lane = policy.lane(broadcast, callback, settings);
        Long expiresAtMs = ExpiresAt.check(r.expiresAt(), delayMs, runAtMs, System.currentTimeMillis());
        return rules.checkJobSize(new NewJob(topic, id, payload, delayMs, runAtMs,
                policy.maxAttempts(attempts, settings), backoff, callback, timeoutMs, broadcast, lane, null, onDead,
                expiresAtMs));
    }

    // ---------------------------------------------------------------- recurring schedules (io.delayq.service.schedules)

    /**
     * A recurring schedule's job, built and checked as {@code POST …/jobs} builds one (the topic's settings fill in
     * what it leaves out), with the id and run time the schedule gives: an id in the schedules' namespace, which
     * {@link JobRules#checkProducerId} refuses to producers, and the fire's time ({@code null}: now).
     */
    public NewJob scheduleJob(String topic, ScheduleJobRequest template, String id, Long runAtMs) {
        NewJob job = toNewJob(topic, template, settings.of(topic));
        return new NewJob(topic, JobRules.checkId(id), job.payload(), runAtMs == null ? Long.valueOf(0L) : null,
                runAtMs, job.maxAttempts(), job.backoff(), job.callback(), job.timeoutMs(), job.broadcast(),
                job.delivery(), job.trace(), job.onDead());
    }

    /** A schedule enqueued a job: counted as an enqueue is (rate meter, topic history, gauges). */
    public void scheduleEnqueued(String topic) {
        enqueued.mark();
        activity.enqueued(topic, 1);
        topicSeen.accept(topic);
    }

    /** Checks a callback as {@link #toNewJob} does; {@code null} stays {@code null}. */
    public Callback callback(CallbackSpec spec) {
        if (spec == null) {
            return null;
        }
        Callback callback = new Callback(spec.url(), spec.headers());
        callbackCheck.accept(callback);
        return callback;
    }

    /**
     * Checks a dead-notice target by the rules of a callback (it is POSTed to as one), with messages that name
     * {@code onDead}; {@code null} stays {@code null}.
     */
    public Callback onDead(CallbackSpec spec) {
        try {
            return callback(spec);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? "invalid" : e.getMessage();
            throw new IllegalArgumentException(message.startsWith("callback")
                    ? "onDead" + message.substring("callback".length()) : "onDead: " + message, e);
        }
    }

    /** Checks a job's or a topic's own backoff as {@link #toNewJob} does; {@code null} stays {@code null}. */
    public Backoff checkBackoff(Backoff backoff) {
        return rules.checkBackoff(backoff);
    }

    public Integer checkMaxAttempts(Integer attempts) {
        if (attempts != null && (attempts < 1 || attempts > rules.maxAttempts())) {
            throw new IllegalArgumentException("maxAttempts is " + attempts + "; it must be between 1 and "
                    + rules.maxAttempts() + " (limits.maxAttempts)");
        }
        return attempts;
    }

    public static Long checkTimeout(Duration timeout) {
        if (timeout == null) {
            return null;
        }
        long ms = timeout.toMilliseconds();
        if (ms < MIN_TIMEOUT_MS || ms > MAX_TIMEOUT_MS) {
            throw new IllegalArgumentException("timeout is " + timeout + "; it must be between 100ms and 24h");
        }
        return ms;
    }

    private void counted(String topic, List<EnqueueResult> results) {
        long created = results.stream().filter(EnqueueResult::created).count();
        if (created > 0) {
            enqueued.mark(created);
            activity.enqueued(topic, (int) created);
        }
        topicSeen.accept(topic);
    }
}
