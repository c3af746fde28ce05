package io.delayq.service.delivery;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import io.delayq.core.JobStore;
import io.delayq.core.PolicyDefaults;
import io.delayq.service.breaker.CallbackBreaker;
import io.delayq.service.ratelimit.OriginRateLimits;
import io.delayq.service.ratelimit.RateLimitMetrics;
import io.delayq.service.ratelimit.TopicPermits;
import io.delayq.service.history.TopicActivity;
import io.dropwizard.lifecycle.Managed;
import io.opentelemetry.api.GlobalOpenTelemetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The push delivery engine: takes due jobs of the push lane from the store at their due time and POSTs them to their
 * callbacks (or publishes broadcast jobs), acknowledging successes in batches and recording failures with the retry
 * policy's next delay. This class wires its parts and runs their lifecycle; the package documentation has the design
 * and names the part that does each thing:
 * <ul>
 *   <li>finding due jobs: {@link TopicTimers}, {@link ReservePump}, {@link SafetySweep}, {@link LeaseExpiry};</li>
 *   <li>sharing capacity between tenants, bounding concurrency: {@link FairScheduler}, {@link TopicOwners};</li>
 *   <li>delivering: {@link LeaseDispatcher}, {@link CallbackSender}, {@link AttemptOutcomes}, {@link AckBatcher};</li>
 *   <li>protecting receivers: the endpoint circuit breaker, {@link CallbackBreaker}.</li>
 * </ul>
 *
 * <p>A Dropwizard {@link Managed}: {@link #start()} subscribes to the store's wake-ups and runs a first sweep;
 * {@link #stop()} stops taking jobs, lets in-flight callbacks finish within the grace period and leaves the rest to
 * lease expiry.
 */
public final class DeliveryEngine implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryEngine.class);

    private final JobStore store;
    private final PolicyDefaults policy;
    private final int reserveBatch;
    private final int maxConcurrency;
    private final int maxPerTopic;
    private final long sweepMs;
    private final long graceMs;
    private final int ackBatchSize;
    private final long ackFlushNanos;

    private final StoreClock clock = new StoreClock();
    private final StoreErrorLog errors = new StoreErrorLog();
    private final DeliveryMetrics metrics;
    private final TopicStates topics;
    private final TopicTimers timers;
    private final FairScheduler scheduler;
    private final TopicOwners owners;
    private final AttemptOutcomes outcomes;
    private final CallbackSender sender;
    private final CallbackBreaker breaker;
    private final ReservePump pump;
    private final LeaseExpiry leaseExpiry;
    private final SafetySweep sweep;
    /** Expired jobs nobody reserves (issue 29), on a thread of its own. */
    private final ExpirySweep expirySweep;

    private volatile boolean running;

    /**
     * An engine over {@code store} with the settings of {@code config}; nothing runs until {@link #start()}.
     *
     * @param metrics where its meters, timer, histogram and gauge are registered
     */
    public DeliveryEngine(JobStore store, DeliveryFactory config, MetricRegistry metrics) {
        this(store, config, metrics, TopicActivity.NONE);
    }

    /**
     * As above, also telling {@code activity} what happens per topic (the stored history).
     */
    public DeliveryEngine(JobStore store, DeliveryFactory config, MetricRegistry metrics, TopicActivity activity) {
        this(store, config, metrics, activity, TenantLookup.NONE);
    }

    /**
     * As above, sharing delivery between the tenants {@code tenants} says own the topics, by their weights, and signing
     * each tenant's callbacks with its secrets.
     */
    public DeliveryEngine(JobStore store, DeliveryFactory config, MetricRegistry metrics, TopicActivity activity,
                          TenantLookup tenants) {
        this.store = store;
        this.policy = config.policyDefaults();
        this.reserveBatch = config.getReserveBatch();
        this.maxConcurrency = config.getMaxConcurrency();
        this.maxPerTopic = config.getMaxConcurrencyPerTopic();
        this.sweepMs = Math.max(10, config.getSweepInterval().toMilliseconds());
        this.graceMs = config.getShutdownGracePeriod().toMilliseconds();
        this.ackBatchSize = config.getAckBatchSize();
        this.ackFlushNanos = config.getAckFlushInterval().toNanoseconds();
        TopicSigners signers = config.signers(tenants);

        // The parts call each other in a circle (a timer pumps, the pump arms timers): the first ones reach the later
        // ones through the methods at the end of this class, which run only after the constructor has set them all.
        this.metrics = new DeliveryMetrics(metrics, this::inFlight, activity);
        this.topics = new TopicStates(metrics);
        this.timers = new TopicTimers(clock, this::dueTimerFired, this::leaseDeadlinePassed);
        this.scheduler = new FairScheduler(maxConcurrency, maxPerTopic, reserveBatch, timers, this::turn);
        this.owners = new TopicOwners(signers, scheduler, errors);
        metrics.gauge(DeliveryMetrics.PREFIX + "free-slots", () -> scheduler::freeSlots);
        metrics.gauge(DeliveryMetrics.PREFIX + "tenants-waiting", () -> scheduler::tenantsWaiting);
        StoreWriteTimes writeTimes = new StoreWriteTimes();
        AttemptBudget budget = new AttemptBudget(writeTimes);
        this.outcomes = new AttemptOutcomes(store, policy, clock, scheduler, timers, this.metrics, errors, budget,
                writeTimes, config.getAsyncAckTimeout().toMilliseconds());
        this.breaker = new CallbackBreaker(store, config.getBreaker().policy(),
                config.getBreaker().getMinTimeout().toMilliseconds(), config.getBreaker().getMaxOrigins(),
                config.getBreaker().getIdleExpiry().toMilliseconds(), clock::storeNowMillis, metrics);
        this.sender = new CallbackSender(config.callbackGuard(), policy, clock,
                outcomes, this.metrics, config.getMaxRetryAfter().toMilliseconds(), budget,
                new CallbackTracing(GlobalOpenTelemetry.get()), breaker);
        LeaseDispatcher dispatcher = new LeaseDispatcher(store, policy, clock, sender, outcomes, this.metrics);
        // rate limits (issue 29): topics' and callback origins' buckets in the store
        RateLimitMetrics rateMetrics = new RateLimitMetrics(metrics);
        OriginRateLimits originLimits = config.getOriginRateLimits().isEmpty() ? OriginRateLimits.NONE
                : OriginRateLimits.of(config.getOriginRateLimits(), store.rateLimiters(), rateMetrics);
        this.pump = new ReservePump(store, policy, clock, timers, dispatcher, this.metrics, errors,
                new TopicPermits(store::rateLimiters, rateMetrics), originLimits);
        this.leaseExpiry = new LeaseExpiry(store, clock, timers, this::ready, errors, this.metrics);
        this.sweep = new SafetySweep(store, topics, timers, errors, sweepMs);
        this.expirySweep = new ExpirySweep(store, this.metrics, errors, sweepMs);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        timers.start();
        outcomes.start(ackBatchSize, ackFlushNanos);
        breaker.start();
        sender.start(maxConcurrency);
        long before = clock.localMicros();
        try {
            clock.observe(store.now(), clock.localMicros());
        } catch (RuntimeException e) {
            // The store may come up later: the first reserve sets the clock, the sweep keeps trying meanwhile.
            LOG.warn("delivery engine starting without the store's clock: {}", e.toString());
        }
        running = true;
        pump.start();
        sweep.start();
        expirySweep.start();
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
            pump.stop();
        }
        timers.shutdown();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
        try {
            timers.awaitTermination(deadline - System.nanoTime());
            while (outcomes.inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        expirySweep.stop();
        sweep.stop(); // after the sweep has ended, so that it cannot subscribe again
        int left = outcomes.inFlight();
        outcomes.abandon(); // before the client aborts them: aborted attempts are not recorded as failures
        sender.stop();
        outcomes.close();
        breaker.stop(); // its last circuit writes and held counts, while the store is still open
        if (left > 0) {
            LOG.warn("delivery engine stopped with {} callbacks still in flight after the {} ms grace period;"
                    + " they will be delivered again when their leases expire", left, graceMs);
        } else {
            LOG.info("delivery engine stopped: delivered={}, failed={}, dead={}", metrics.delivered.getCount(),
                    metrics.failed.getCount(), metrics.dead.getCount());
        }
    }

    /**
     * Re-reads a topic's settings and looks for due jobs now. The service calls it after changing a topic's settings
     * (e.g. resuming a paused topic); other instances notice within a second or at the next sweep.
     */
    public void wake(String topic) {
        TopicState ts = topics.of(topic);
        pump.forgetSettings(ts);
        if (running) {
            ready(ts);
        }
    }

    /**
     * Arms the topic's lease timer for leases this instance handed to pulling consumers, so that the lease of a
     * consumer that crashed is taken back when it ends rather than at the next safety sweep.
     *
     * @param earliestDeadlineMs the earliest deadline among them, by the store's clock
     */
    public void watchLeases(String topic, long earliestDeadlineMs) {
        if (running) {
            timers.armLease(topics.of(topic), earliestDeadlineMs, Long.MIN_VALUE);
        }
    }

    /**
     * How delivery is shared now, per tenant that had a topic with work due since the start: its weight, the slots its
     * topics hold, its topics waiting for a turn, and its turns and jobs reserved so far.
     *
     * @param tenant the tenant's name, or {@code null} for the operators' topics
     */
    public record TenantShare(String tenant, int weight, int slots, int waitingTopics, long turns, long reserved) {
    }

    /** The {@link TenantShare}s of this instance, read now. */
    public List<TenantShare> tenantShares() {
        return scheduler.snapshot().stream()
                .map(s -> new TenantShare(s.tenant().equals(TopicOwners.OPERATORS) ? null : s.tenant(), s.weight(),
                        s.held(), s.ready(), s.turns(), s.reserved()))
                .toList();
    }

    /** Callbacks in flight now. */
    public int inFlight() {
        return outcomes.inFlight();
    }

    /** The {@code "engine"} health check: running, and its last safety sweep reached the store recently. */
    public HealthCheck healthCheck() {
        return new HealthCheck() {
            @Override
            protected Result check() {
                if (!running) {
                    return Result.unhealthy("the delivery engine is not running");
                }
                Result sweepProblem = sweep.unhealthy();
                if (sweepProblem != null) {
                    return sweepProblem;
                }
                return Result.healthy("%d callbacks in flight, last sweep %d ms ago", inFlight(),
                        sweep.lastSweepAgeMs());
            }
        };
    }

    /** A due timer fired, on a timer thread: the topic's turn runs here if a turn is free and due to it. */
    private void dueTimerFired(TopicState ts) {
        owners.refresh(ts);
        scheduler.readyHere(ts);
    }

    /** The topic may have due jobs: it waits for its turn. */
    private void ready(TopicState ts) {
        owners.refresh(ts);
        scheduler.ready(ts);
    }

    private int turn(TopicState ts, int slots) {
        return pump.pump(ts, slots);
    }

    private void leaseDeadlinePassed(TopicState ts, long deadline) {
        leaseExpiry.deadlinePassed(ts, deadline);
    }
}
