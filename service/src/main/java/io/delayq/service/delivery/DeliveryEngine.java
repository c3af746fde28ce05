package io.delayq.service.delivery;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.ReserveResult;
import io.delayq.core.RetryPolicy;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;

/**
 * The push delivery engine: takes due jobs of the push lane from the store at their due time and POSTs them to their
 * callbacks (or publishes broadcast jobs), acknowledging successes in batches and recording failures with the retry
 * policy's next delay. See the package documentation for the design.
 *
 * <p>A Dropwizard {@link Managed}: {@link #start()} subscribes to the store's wake-ups and runs a first sweep;
 * {@link #stop()} stops taking jobs, lets in-flight callbacks finish within the grace period and leaves the rest to
 * lease expiry.
 */
public final class DeliveryEngine implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryEngine.class);
    static final String METRICS = "delayq.delivery.";
    private static final long SETTINGS_TTL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long RETRY_AFTER_ERROR_MS = 1_000;
    private static final int EXPIRE_BATCH = 1_000;
    private static final long REFILL_DELAY_MICROS = 1_000;
    private static final DateTimeFormatter RFC_3339 = DateTimeFormatter.ISO_INSTANT;

    private final JobStore store;
    private final PolicyDefaults policy;
    private final CallbackGuard guard;
    private final Signatures signatures;
    private final int reserveBatch;
    private final int maxConcurrency;
    private final int maxPerTopic;
    private final long sweepMs;
    private final long graceMs;
    private final long maxRetryAfterMs;
    private final int ackBatchSize;
    private final long ackFlushNanos;
    private final MetricRegistry metrics;

    private final Semaphore global;
    private final StoreClock clock = new StoreClock();
    private final ConcurrentHashMap<String, TopicState> topics = new ConcurrentHashMap<>();
    private final Set<TopicState> starvedTopics = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean refillScheduled = new AtomicBoolean();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentHashMap<String, URI> checkedCallbacks = new ConcurrentHashMap<>();

    private final Meter delivered;
    private final Meter failed;
    private final Meter dead;
    private final Meter reserveCalls;
    private final Meter reserved;
    private final Timer callbackLatency;
    private final Histogram lateness;

    private volatile boolean running;
    private volatile boolean accepting;
    private ScheduledThreadPoolExecutor scheduler;
    private ThreadPoolExecutor storeWriters;
    private CallbackClient http;
    private AckBatcher acks;
    private volatile AutoCloseable subscription;
    private volatile long lastSweepAt;
    private volatile String lastSweepError;
    private volatile long lastErrorLog;
    /** Set when the grace period of a stop has passed: what is still in flight is left to lease expiry. */
    private volatile boolean abandoned;

    /**
     * An engine over {@code store} with the settings of {@code config}; nothing runs until {@link #start()}.
     *
     * @param metrics where its meters, timer, histogram and gauge are registered
     */
    public DeliveryEngine(JobStore store, DeliveryFactory config, MetricRegistry metrics) {
        this.store = store;
        this.policy = config.policyDefaults();
        this.guard = config.callbackGuard();
        this.signatures = new Signatures(config.getSigningSecret() == null ? "" : config.getSigningSecret());
        this.reserveBatch = config.getReserveBatch();
        this.maxConcurrency = config.getMaxConcurrency();
        this.maxPerTopic = config.getMaxConcurrencyPerTopic();
        this.sweepMs = Math.max(10, config.getSweepInterval().toMilliseconds());
        this.graceMs = config.getShutdownGracePeriod().toMilliseconds();
        this.maxRetryAfterMs = config.getMaxRetryAfter().toMilliseconds();
        this.ackBatchSize = config.getAckBatchSize();
        this.ackFlushNanos = config.getAckFlushInterval().toNanoseconds();
        this.metrics = metrics;
        this.global = new Semaphore(maxConcurrency);
        this.delivered = metrics.meter(METRICS + "delivered");
        this.failed = metrics.meter(METRICS + "failed");
        this.dead = metrics.meter(METRICS + "dead");
        this.reserveCalls = metrics.meter(METRICS + "reserve-calls");
        this.reserved = metrics.meter(METRICS + "reserved");
        // Lock-free reservoirs: these are updated once per job from many threads.
        this.callbackLatency = metrics.timer(METRICS + "callback-latency",
                () -> new Timer(LockFreeExponentiallyDecayingReservoir.builder().build()));
        this.lateness = metrics.histogram(METRICS + "lateness",
                () -> new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build()));
        metrics.gauge(METRICS + "in-flight", () -> inFlight::get);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        scheduler = new ScheduledThreadPoolExecutor(2, Threads.named("delayq-delivery-timer", false));
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        scheduler.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        // Store writes that follow an attempt (a failure's nack, a broadcast's publish) block on the store, so they run
        // here rather than on the HTTP client's threads; acks go to the AckBatcher, which never blocks its caller.
        storeWriters = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Threads.named("delayq-delivery-store", false));
        storeWriters.allowCoreThreadTimeOut(true);
        http = new CallbackClient(maxConcurrency, Math.min(5_000, policy.timeoutMs()), guard);
        http.start();
        acks = new AckBatcher(store, ackBatchSize, ackFlushNanos, clock::storeNowMillis);
        long before = clock.localMicros();
        try {
            clock.observe(store.now(), clock.localMicros());
        } catch (RuntimeException e) {
            // The store may come up later: the first reserve sets the clock, the sweep keeps trying meanwhile.
            LOG.warn("delivery engine starting without the store's clock: {}", e.toString());
        }
        abandoned = false;
        running = true;
        accepting = true;
        subscribe();
        scheduler.scheduleWithFixedDelay(this::sweep, 0, sweepMs, TimeUnit.MILLISECONDS);
        LOG.info("delivery engine started: maxConcurrency={}, maxConcurrencyPerTopic={}, reserveBatch={},"
                        + " default timeout={} ms, default maxAttempts={}, sweep every {} ms, store clock offset {} µs"
                        + " (round trip {} µs)", maxConcurrency, maxPerTopic, reserveBatch, policy.timeoutMs(),
                policy.maxAttempts(), sweepMs, clock.offsetMicros(), clock.localMicros() - before);
    }

    @Override
    public void stop() {
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            accepting = false;
        }
        scheduler.shutdown();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
        try {
            scheduler.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            while (inFlight.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(subscription); // after the sweep has ended, so that it cannot subscribe again
        subscription = null;
        int left = inFlight.get();
        abandoned = true; // before the client aborts them: aborted attempts are not recorded as failures
        http.stop();
        storeWriters.shutdown();
        try {
            storeWriters.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        acks.close();
        if (left > 0) {
            LOG.warn("delivery engine stopped with {} callbacks still in flight after the {} ms grace period;"
                    + " they will be delivered again when their leases expire", left, graceMs);
        } else {
            LOG.info("delivery engine stopped: delivered={}, failed={}, dead={}", delivered.getCount(),
                    failed.getCount(), dead.getCount());
        }
    }

    /**
     * Re-reads a topic's settings and looks for due jobs now. The service calls it after changing a topic's settings
     * (e.g. resuming a paused topic); other instances notice within a second or at the next sweep.
     */
    public void wake(String topic) {
        TopicState ts = state(topic);
        ts.settingsLoadedNanos = 0;
        requestPump(ts);
    }

    /**
     * Arms the topic's lease timer for leases this instance handed to pulling consumers, so that the lease of a
     * consumer that crashed is taken back when it ends rather than at the next safety sweep.
     *
     * @param earliestDeadlineMs the earliest deadline among them, by the store's clock
     */
    public void watchLeases(String topic, long earliestDeadlineMs) {
        if (running) {
            armLease(state(topic), earliestDeadlineMs, Long.MIN_VALUE);
        }
    }

    /** Callbacks in flight now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** The {@code "engine"} health check: running, and its last safety sweep reached the store recently. */
    public HealthCheck healthCheck() {
        return new HealthCheck() {
            @Override
            protected Result check() {
                if (!running) {
                    return Result.unhealthy("the delivery engine is not running");
                }
                String error = lastSweepError;
                if (error != null) {
                    return Result.unhealthy("the delivery engine's last sweep failed: " + error);
                }
                long age = System.currentTimeMillis() - lastSweepAt;
                if (lastSweepAt == 0 || age > 3 * sweepMs + 1_000) {
                    return Result.unhealthy("the delivery engine's safety sweep has not completed for " + age
                            + " ms (expected every " + sweepMs + " ms)");
                }
                return Result.healthy("%d callbacks in flight, last sweep %d ms ago", inFlight.get(), age);
            }
        };
    }

    // ---------------------------------------------------------------- wake-ups and timers

    private final class Listener implements StoreListener {
        @Override
        public void onWake(String topic, long dueAt) {
            if (running) {
                armDue(state(topic), dueAt, Long.MIN_VALUE);
            }
        }
    }

    private TopicState state(String topic) {
        return topics.computeIfAbsent(topic, t -> new TopicState(t, maxPerTopic, metrics, METRICS));
    }

    /**
     * Arms the topic's due timer for {@code dueAtStoreMs} by the store's clock, unless an earlier one is pending.
     *
     * @param notBeforeLocalMicros a local time the timer must not fire before ({@link Long#MIN_VALUE} for none)
     */
    private void armDue(TopicState ts, long dueAtStoreMs, long notBeforeLocalMicros) {
        long fireAt = Math.max(clock.localMicrosAt(dueAtStoreMs), notBeforeLocalMicros);
        long delayMicros = fireAt - clock.localMicros();
        synchronized (ts) {
            if (ts.dueTimer != null && ts.dueTimerAt <= fireAt) {
                return;
            }
            if (ts.dueTimer != null) {
                ts.dueTimer.cancel(false);
                ts.dueTimer = null;
            }
            if (delayMicros <= 0) {
                requestPump(ts);
                return;
            }
            long seq = ++ts.dueTimerSeq;
            try {
                ts.dueTimer = scheduler.schedule(() -> onDueTimer(ts, seq), delayMicros, TimeUnit.MICROSECONDS);
                ts.dueTimerAt = fireAt;
            } catch (RejectedExecutionException stopping) {
                // shutting down
            }
        }
    }

    private void onDueTimer(TopicState ts, long seq) {
        synchronized (ts) {
            if (ts.dueTimerSeq == seq) {
                ts.dueTimer = null;
            }
        }
        pumpSerially(ts); // on the timer thread: no hand-off between the due time and the store call
    }

    private void armLease(TopicState ts, long deadlineStoreMs, long notBeforeLocalMicros) {
        // +1 ms: a lease is taken back once its deadline has passed, not at it.
        long fireAt = Math.max(clock.localMicrosAt(deadlineStoreMs + 1), notBeforeLocalMicros);
        long delayMicros = Math.max(0, fireAt - clock.localMicros());
        synchronized (ts) {
            if (ts.leaseTimer != null && ts.leaseTimerAt <= fireAt) {
                return;
            }
            if (ts.leaseTimer != null) {
                ts.leaseTimer.cancel(false);
            }
            long seq = ++ts.leaseTimerSeq;
            try {
                ts.leaseTimer = scheduler.schedule(() -> onLeaseTimer(ts, seq, deadlineStoreMs), delayMicros,
                        TimeUnit.MICROSECONDS);
                ts.leaseTimerAt = fireAt;
            } catch (RejectedExecutionException stopping) {
                ts.leaseTimer = null;
            }
        }
    }

    private void onLeaseTimer(TopicState ts, long seq, long armedForDeadline) {
        synchronized (ts) {
            if (ts.leaseTimerSeq == seq) {
                ts.leaseTimer = null;
            }
        }
        if (!running) {
            return;
        }
        try {
            int total = 0;
            int n;
            do {
                n = store.expireLeases(ts.topic, EXPIRE_BATCH);
                total += n;
            } while (n == EXPIRE_BATCH && running);
            if (total > 0) {
                LOG.debug("took back {} expired leases of topic {}", total, ts.topic);
                requestPump(ts); // push jobs among them are due again now
            }
            long next = store.nextLeaseDeadline(ts.topic);
            if (next >= 0) {
                // Nothing expired although a deadline said so: our clock estimate ran ahead; do not spin on it.
                long notBefore = total == 0 && next <= armedForDeadline ? clock.localMicros() + 10_000 : Long.MIN_VALUE;
                armLease(ts, next, notBefore);
            }
        } catch (RuntimeException e) {
            logStoreError("expire leases of topic " + ts.topic, e);
            armLease(ts, clock.storeNowMillis() + RETRY_AFTER_ERROR_MS, Long.MIN_VALUE);
        }
    }

    private void subscribe() {
        try {
            subscription = store.subscribe(new Listener());
        } catch (RuntimeException e) {
            LOG.warn("delivery engine could not subscribe to the store's wake-ups ({}); retrying at every sweep,"
                    + " due jobs are found by the sweep meanwhile", e.toString());
        }
    }

    /** The safety net: finds due jobs and lease deadlines whose wake-up was missed. */
    private void sweep() {
        if (!running) {
            return;
        }
        if (subscription == null) {
            subscribe();
        }
        try {
            for (String topic : store.topics()) {
                if (!running) {
                    return;
                }
                TopicState ts = state(topic);
                long due = store.nextDueAt(topic, Delivery.PUSH);
                if (due >= 0) {
                    armDue(ts, due, Long.MIN_VALUE);
                }
                long lease = store.nextLeaseDeadline(topic);
                if (lease >= 0) {
                    armLease(ts, lease, Long.MIN_VALUE);
                }
            }
            lastSweepError = null;
            lastSweepAt = System.currentTimeMillis();
        } catch (RuntimeException e) {
            lastSweepError = e.toString();
            logStoreError("sweep topics", e);
        }
    }

    // ---------------------------------------------------------------- reserving

    private void requestPump(TopicState ts) {
        if (!running) {
            return;
        }
        try {
            scheduler.execute(() -> pumpSerially(ts));
        } catch (RejectedExecutionException stopping) {
            // shutting down
        }
    }

    /** Runs the pump of one topic, never twice at once; requests that arrive meanwhile make it run once more. */
    private void pumpSerially(TopicState ts) {
        if (ts.pumpRequests.getAndIncrement() != 0) {
            return;
        }
        int seen;
        do {
            seen = ts.pumpRequests.get();
            try {
                pump(ts);
            } catch (RuntimeException e) {
                logStoreError("reserve jobs of topic " + ts.topic, e);
                armDue(ts, clock.storeNowMillis() + RETRY_AFTER_ERROR_MS, Long.MIN_VALUE);
            }
        } while (ts.pumpRequests.addAndGet(-seen) != 0);
    }

    private void pump(TopicState ts) {
        if (!accepting) {
            return;
        }
        TopicSettings settings = settings(ts);
        if (settings.isPaused()) {
            if (!ts.paused) {
                LOG.info("topic {} is paused: not delivering its jobs until it is resumed", ts.topic);
            }
            ts.paused = true;
            return; // resumed by wake(topic) here, or by the sweep on every instance
        }
        ts.paused = false;
        long leaseMs = policy.timeoutMs(null, settings);
        while (accepting) {
            int want = acquire(ts);
            if (want == 0) {
                return; // starved; a released slot pumps again
            }
            ReserveResult result;
            try {
                result = store.reserve(ts.topic, Delivery.PUSH, want, leaseMs);
            } catch (RuntimeException e) {
                release(ts, want);
                throw e;
            }
            long receivedAt = clock.localMicros();
            if (result.now() > 0) {
                clock.observe(result.now(), receivedAt);
            }
            int got = result.leases().size();
            reserveCalls.mark();
            if (got < want) {
                release(ts, want - got);
            }
            if (got > 0) {
                reserved.mark(got);
                for (Lease lease : result.leases()) {
                    try {
                        dispatch(ts, lease, settings);
                    } catch (RuntimeException e) {
                        // a bug or an unexpected job shape must not strand the rest of the batch or leak its slot
                        LOG.error("could not dispatch {}; recording it as a failed attempt", lease.ref(), e);
                        failed(ts, lease, settings, "delivery failed inside delayq: " + e, null, null);
                    }
                }
            }
            if (got < want) {
                if (result.nextDueAt() >= 0) {
                    // After an empty answer (a timer that fired early, or a stale wake-up) arm by the store's own
                    // "now", which is certainly not early, so that a wrong clock estimate can never spin.
                    long notBefore = got == 0 && result.now() > 0
                            ? receivedAt + (result.nextDueAt() - result.now()) * 1_000L
                            : Long.MIN_VALUE;
                    armDue(ts, result.nextDueAt(), notBefore);
                }
                return;
            }
            // a full batch: more may be due; go again while there are free slots
        }
    }

    private TopicSettings settings(TopicState ts) {
        TopicSettings cached = ts.settings;
        long now = System.nanoTime();
        if (cached == null || now - ts.settingsLoadedNanos > SETTINGS_TTL_NANOS || ts.settingsLoadedNanos == 0) {
            cached = store.settings(ts.topic);
            ts.settings = cached;
            ts.settingsLoadedNanos = now == 0 ? 1 : now;
        }
        return cached;
    }

    /** Takes up to {@code reserveBatch} slots, global and per topic; 0 marks the topic starved. */
    private int acquire(TopicState ts) {
        while (true) {
            int got = acquireUpTo(global, reserveBatch);
            if (got > 0) {
                int topicGot = acquireUpTo(ts.permits, got);
                if (topicGot < got) {
                    global.release(got - topicGot);
                }
                if (topicGot > 0) {
                    return topicGot;
                }
            }
            // No slot: register for a refill, then look again in case one was released in between.
            ts.starved.set(true);
            starvedTopics.add(ts);
            if (global.availablePermits() == 0 || ts.permits.availablePermits() == 0) {
                return 0;
            }
            starvedTopics.remove(ts);
            ts.starved.set(false);
        }
    }

    private static int acquireUpTo(Semaphore semaphore, int max) {
        while (true) {
            int available = Math.min(semaphore.availablePermits(), max);
            if (available <= 0) {
                return 0;
            }
            if (semaphore.tryAcquire(available)) {
                return available;
            }
        }
    }

    private void release(TopicState ts, int n) {
        ts.permits.release(n);
        global.release(n);
        if (!starvedTopics.isEmpty() && refillScheduled.compareAndSet(false, true)) {
            // Wait a moment so that one reserve call refills the slots of several finished callbacks.
            try {
                scheduler.schedule(this::refill, REFILL_DELAY_MICROS, TimeUnit.MICROSECONDS);
            } catch (RejectedExecutionException stopping) {
                refillScheduled.set(false);
            }
        }
    }

    private void refill() {
        refillScheduled.set(false);
        for (TopicState ts : starvedTopics) {
            if (starvedTopics.remove(ts)) {
                ts.starved.set(false);
                pumpSerially(ts);
            }
        }
    }

    // ---------------------------------------------------------------- delivering

    /**
     * Counts the lease in flight and starts its attempt: an HTTP callback is sent from here without blocking (the
     * answer comes back on the client's threads); broadcasts and jobs without a callback need a store write first and
     * go to the store-writer threads.
     */
    private void dispatch(TopicState ts, Lease lease, TopicSettings settings) {
        inFlight.incrementAndGet();
        lateness.update(Math.max(0, clock.storeNowMillis() - lease.job().runAt()));
        Job job = lease.job();
        Callback callback = job.broadcast() ? null : policy.callback(job, settings);
        if (callback != null) {
            post(ts, lease, settings, callback);
            return;
        }
        try {
            storeWriters.execute(() -> {
                try {
                    if (job.broadcast()) {
                        store.publishBroadcast(job);
                        succeeded(ts, lease, 0);
                    } else {
                        finish(ts, lease, settings, Failure.dead("no callback: the job has none and topic "
                                + job.topic() + " has no default callback; set one with PUT /v1/topics/" + job.topic(),
                                null));
                    }
                } catch (RuntimeException e) {
                    LOG.error("could not deliver {}; recording it as a failed attempt", lease.ref(), e);
                    failed(ts, lease, settings, "delivery failed inside delayq: " + e, null, null);
                }
            });
        } catch (RejectedExecutionException stopping) {
            done(ts); // the lease expires and the job comes back
        }
    }

    /** One HTTP attempt: POST the payload, then ack or record the failure when the answer comes. */
    private void post(TopicState ts, Lease lease, TopicSettings settings, Callback callback) {
        Job job = lease.job();
        URI uri;
        long timeoutMs;
        try {
            uri = checkedCallback(callback.url());
            long attemptMs = policy.timeoutMs(job.timeoutMs(), settings);
            long leaseLeft = lease.deadline() - clock.storeNowMillis();
            long margin = Math.min(attemptMs / 10, 1_000);
            timeoutMs = Math.max(1, Math.min(attemptMs, leaseLeft) - margin);
        } catch (IllegalArgumentException refused) {
            failedLater(ts, lease, settings, refused.getMessage(), null, null);
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("delivering {} attempt {} to {}", job.ref(), lease.attempt(), uri);
        }
        byte[] body = job.payload().getBytes(StandardCharsets.UTF_8);
        long sentNanos = System.nanoTime();
        try {
            // refused when the job was accepted; checked again for jobs written before a rule existed
            CallbackGuard.checkHeaders(callback.headers());
            http.post(uri, headers(lease, callback, body), body, timeoutMs,
                    answer -> answered(ts, lease, settings, answer, sentNanos, timeoutMs));
        } catch (IllegalArgumentException badHeader) {
            failedLater(ts, lease, settings, "a callback header cannot be sent (" + badHeader.getMessage()
                    + "); fix or remove it in the job's callback", null, null);
        } catch (RuntimeException stopping) {
            done(ts); // the client is stopping: the lease expires and the job comes back
        }
    }

    /** Records a failed attempt on a store writer: the caller is the timer thread or an HTTP client thread. */
    private void failedLater(TopicState ts, Lease lease, TopicSettings settings, String error, Integer status,
                             Long retryAfterMs) {
        try {
            storeWriters.execute(() -> failed(ts, lease, settings, error, status, retryAfterMs));
        } catch (RejectedExecutionException stopping) {
            done(ts); // the lease expires and the job comes back
        }
    }

    /**
     * The callback URL, checked against the guard again at delivery (the rules may have changed since it was
     * accepted). Names are not looked up here: the HTTP client's resolver checks every address a name resolves to
     * when it connects. URLs are remembered once checked (a bounded cache), so a URL is not parsed for every job.
     */
    private URI checkedCallback(String url) {
        URI known = checkedCallbacks.get(url);
        if (known != null) {
            return known;
        }
        URI uri = guard.check(url);
        if (checkedCallbacks.size() >= 10_000) {
            checkedCallbacks.clear();
        }
        checkedCallbacks.put(url, uri);
        return uri;
    }

    /** The callback's own headers, then delayq's (which win). */
    private Map<String, String> headers(Lease lease, Callback callback, byte[] body) {
        Job job = lease.job();
        Map<String, String> headers = new LinkedHashMap<>(callback.headers());
        headers.put("Delayq-Id", job.id());
        headers.put("Delayq-Topic", job.topic());
        headers.put("Delayq-Attempt", Integer.toString(lease.attempt()));
        headers.put("Delayq-Run-At", RFC_3339.format(Instant.ofEpochMilli(job.runAt())));
        headers.put(Signatures.HEADER, signatures.header(System.currentTimeMillis() / 1_000, body));
        return headers;
    }

    /** The answer of an attempt, on an HTTP client thread: acks without blocking, hands failures to a store writer. */
    private void answered(TopicState ts, Lease lease, TopicSettings settings, CallbackClient.Answer answer,
                          long sentNanos, long timeoutMs) {
        long elapsed = System.nanoTime() - sentNanos;
        if (abandoned) {
            done(ts); // stopped after the grace period: the lease expires, which counts as this attempt
            return;
        }
        callbackLatency.update(elapsed, TimeUnit.NANOSECONDS);
        if (answer.is2xx()) {
            succeeded(ts, lease, elapsed);
            return;
        }
        String error;
        Integer status = null;
        Long retryAfter = null;
        if (answer.failure() != null) {
            error = describe(answer.failure(), timeoutMs);
        } else {
            status = answer.status();
            error = "callback answered HTTP " + status + (answer.snippet().isEmpty() ? "" : ": " + answer.snippet());
            if (status == 429 || status == 503) {
                OptionalLong wait = RetryAfter.millis(answer.retryAfter(), System.currentTimeMillis());
                if (wait.isPresent()) {
                    retryAfter = Math.min(wait.getAsLong(), maxRetryAfterMs);
                }
            }
        }
        failedLater(ts, lease, settings, error, status, retryAfter);
    }

    /** A failure without an answer, as the job's history shows it. */
    static String describe(Throwable error, long timeoutMs) {
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof IllegalArgumentException refused) {
                return refused.getMessage(); // the guard refused the address the callback host resolved to
            }
            if (e instanceof UnknownHostException unknown) {
                return unknown.getMessage();
            }
            if (e instanceof TimeoutException) {
                return "the callback did not answer within " + timeoutMs + " ms";
            }
            if (e instanceof SocketTimeoutException) {
                return "could not connect to the callback within " + timeoutMs + " ms";
            }
            if (e instanceof ConnectException) {
                return "could not connect to the callback: "
                        + (e.getMessage() == null ? "connection refused" : e.getMessage());
            }
        }
        if (error instanceof IOException) {
            return "the callback request failed: "
                    + (error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage());
        }
        return "the callback request failed: " + error;
    }

    private void succeeded(TopicState ts, Lease lease, long elapsedNanos) {
        try {
            if (!acks.add(LeaseRef.of(lease), lease.deadline())) {
                LOG.debug("engine stopping: {} not acknowledged; it is delivered again after its lease", lease.ref());
            }
            delivered.mark();
            ts.delivered.inc();
            if (LOG.isDebugEnabled()) {
                LOG.debug("delivered {} attempt {} in {} µs", lease.ref(), lease.attempt(), elapsedNanos / 1_000);
            }
        } finally {
            done(ts);
        }
    }

    private void failed(TopicState ts, Lease lease, TopicSettings settings, String error, Integer status,
                        Long retryAfterMs) {
        RetryPolicy retry = policy.retryPolicy(lease.job(), settings);
        long delay = retry.nextDelayMillis(lease.attempt(), ThreadLocalRandom.current());
        Failure failure;
        if (delay < 0) {
            failure = Failure.dead(error, status);
        } else {
            failure = Failure.retryAfter(retryAfterMs != null ? retryAfterMs : delay, error, status);
        }
        finish(ts, lease, settings, failure);
    }

    /** Records a failed attempt in the store (retry or dead) and frees the slot. */
    private void finish(TopicState ts, Lease lease, TopicSettings settings, Failure failure) {
        try {
            failed.mark();
            ts.failed.inc();
            if (abandoned) {
                return; // stopped: the lease expires, which counts as this failed attempt
            }
            StoreStatus status = store.nack(LeaseRef.of(lease), failure);
            Job job = lease.job();
            if (status != StoreStatus.OK) {
                LOG.debug("recording the failed attempt {} of {} answered {}", lease.attempt(), job.ref(), status);
                return;
            }
            if (failure.isDead()) {
                dead.mark();
                ts.dead.inc();
                LOG.warn("job {}/{} is dead after {} attempts: {}", job.topic(), job.id(), lease.attempt(),
                        failure.error());
            } else {
                LOG.debug("attempt {} of {} failed ({}); next in {} ms", lease.attempt(), job.ref(), failure.error(),
                        failure.retryDelayMs());
                // The store may not announce a retry that becomes the topic's earliest job; arm for it here.
                armDue(ts, clock.storeNowMillis() + failure.retryDelayMs() + 1, Long.MIN_VALUE);
            }
        } catch (RuntimeException e) {
            logStoreError("record the failed attempt of " + lease.ref() + " (its lease will expire instead)", e);
        } finally {
            done(ts);
        }
    }

    private void done(TopicState ts) {
        inFlight.decrementAndGet();
        release(ts, 1);
    }

    private void logStoreError(String what, RuntimeException e) {
        long now = System.currentTimeMillis();
        if (now - lastErrorLog > 10_000) {
            lastErrorLog = now;
            LOG.warn("delivery engine could not {}: {}", what, e.toString());
        } else {
            LOG.debug("delivery engine could not {}", what, e);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.debug("closing the store subscription failed", e);
        }
    }
}
