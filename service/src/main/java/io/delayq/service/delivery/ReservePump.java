package io.delayq.service.delivery;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.ReserveResult;
import io.delayq.core.TopicSettings;
import io.delayq.core.breaker.Origins;
import io.delayq.core.ratelimit.Rate;
import io.delayq.service.ratelimit.OriginRateLimits;
import io.delayq.service.ratelimit.TopicPermits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One turn of a topic ({@link FairScheduler}): reserves at most as many of its due push jobs as the turn was granted
 * slots for, in one store call, and hands them to the {@link LeaseDispatcher}. A batch that comes back full means more
 * may be due: the scheduler gives the topic another turn. A short one re-arms the topic's due timer from the next run
 * time the store returned. Under load one reserve takes every job that fell due since the last, so the store calls per
 * job fall as the rate rises.
 *
 * <p>A paused topic is not reserved at all (settings are cached for a second; {@link #forgetSettings} drops the cache
 * after a change here).
 *
 * <p>Rate limits: a topic with a {@code rateLimit} takes its permits ({@link TopicPermits}, one store call) before the
 * reserve and reserves no more jobs than were granted; with none granted, the turn ends and the due timer is armed for
 * the next permit, so the topic's slots and turns go to other topics meanwhile and its jobs wait in the store without
 * using an attempt. Callback origins with a limit ({@link OriginRateLimits}) are admitted after the reserve, one take
 * per limited origin in the batch; leases beyond their origin's grant are held (postponed without an attempt).
 */
final class ReservePump implements FairScheduler.Pump {
    private static final Logger LOG = LoggerFactory.getLogger(ReservePump.class);
    private static final long SETTINGS_TTL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long RETRY_AFTER_ERROR_MS = 1_000;

    private final JobStore store;
    private final PolicyDefaults policy;
    private final StoreClock clock;
    private final TopicTimers timers;
    private final LeaseDispatcher dispatcher;
    private final DeliveryMetrics metrics;
    private final StoreErrorLog errors;
    private final TopicPermits permits;
    private final OriginRateLimits origins;
    private volatile boolean accepting;

    ReservePump(JobStore store, PolicyDefaults policy, StoreClock clock, TopicTimers timers,
                LeaseDispatcher dispatcher, DeliveryMetrics metrics, StoreErrorLog errors, TopicPermits permits,
                OriginRateLimits origins) {
        this.store = store;
        this.policy = policy;
        this.clock = clock;
        this.timers = timers;
        this.dispatcher = dispatcher;
        this.metrics = metrics;
        this.errors = errors;
        this.permits = permits;
        this.origins = origins;
    }

    void start() {
        accepting = true;
    }

    /** Stops reserving; a turn in progress ends after its store call. */
    void stop() {
        accepting = false;
    }

    /** Makes the next turn of the topic read its settings from the store. */
    void forgetSettings(TopicState ts) {
        ts.settingsLoadedNanos = 0;
    }

    @Override
    public int pump(TopicState ts, int slots) {
        try {
            return reserve(ts, slots);
        } catch (RuntimeException e) {
            errors.log("reserve jobs of topic " + ts.topic, e);
            timers.armDue(ts, clock.storeNowMillis() + RETRY_AFTER_ERROR_MS, Long.MIN_VALUE);
            return 0;
        }
    }

    private int reserve(TopicState ts, int want) {
        if (!accepting) {
            return 0;
        }
        TopicSettings settings = settings(ts);
        if (settings.isPaused()) {
            if (!ts.paused) {
                LOG.info("topic {} is paused: not delivering its jobs until it is resumed", ts.topic);
            }
            ts.paused = true;
            return 0; // resumed by DeliveryEngine.wake(topic) here, or by the sweep on every instance
        }
        ts.paused = false;
        long leaseMs = policy.timeoutMs(null, settings);
        Rate rate = settings.rateLimit();
        TopicPermits.Taken taken = null;
        int ask = want;
        if (rate != null) {
            taken = permits.take(ts.topic, TopicPermits.Lane.PUSH, rate, want);
            if (taken.granted() == 0) {
                // Over the limit: the jobs stay in the store, unleased; the turn and its slots go to other topics.
                timers.armDue(ts, clock.storeNowMillis() + taken.retryAfterMs(), Long.MIN_VALUE);
                return 0;
            }
            ask = taken.granted();
        }
        ReserveResult result = store.reserve(ts.topic, Delivery.PUSH, ask, leaseMs, ExpirySweep.expiresAfter(settings));
        metrics.expired(ts.topic, result.expired());
        long receivedAt = clock.localMicros();
        if (result.now() > 0) {
            clock.observe(result.now(), receivedAt);
        }
        int got = result.leases().size();
        metrics.reserveCalls.mark();
        if (got > 0) {
            metrics.reserved.mark(got);
            dispatch(ts, result.leases(), settings);
        }
        if (taken != null) {
            permits.reserved(ts.topic, TopicPermits.Lane.PUSH, taken, got);
            if (taken.limited() && got == taken.granted()) {
                // More may be due, but not before the next permit: no turn until then (none when nothing is pending).
                if (result.nextDueAt() >= 0) {
                    long nextPermit = clock.storeNowMillis() + taken.retryAfterMs();
                    timers.armDue(ts, Math.max(result.nextDueAt(), nextPermit), Long.MIN_VALUE);
                }
                return got;
            }
        }
        if (got < want && result.nextDueAt() >= 0) {
            // After an empty answer (a timer that fired early, or a stale wake-up) arm by the store's own "now", which
            // is certainly not early, so that a wrong clock estimate can never spin.
            long notBefore = got == 0 && result.now() > 0
                    ? receivedAt + (result.nextDueAt() - result.now()) * 1_000L
                    : Long.MIN_VALUE;
            timers.armDue(ts, result.nextDueAt(), notBefore);
        }
        return got;
    }

    /** Dispatches a batch, holding the leases whose callback origin is over its rate limit. */
    private void dispatch(TopicState ts, List<Lease> leases, TopicSettings settings) {
        if (origins.isEmpty()) {
            for (Lease lease : leases) {
                dispatcher.dispatch(ts, lease, settings);
            }
            return;
        }
        List<String> urls = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            urls.add(dispatcher.callbackUrl(lease, settings));
        }
        long[] holds;
        try {
            holds = origins.admit(urls);
        } catch (RuntimeException e) {
            // The store could not be asked: the leases are ours already; deliver them rather than let them expire.
            errors.log("take origin rate-limit permits for topic " + ts.topic, e);
            holds = new long[leases.size()];
            Arrays.fill(holds, -1L);
        }
        for (int i = 0; i < holds.length; i++) {
            if (holds[i] < 0) {
                dispatcher.dispatch(ts, leases.get(i), settings);
            } else {
                dispatcher.hold(ts, leases.get(i), Failure.held(holds[i], "rate limit of callback origin "
                        + originOf(urls.get(i)) + ": waiting for a permit, without using an attempt"));
            }
        }
    }

    private static String originOf(String url) {
        try {
            return Origins.of(url);
        } catch (IllegalArgumentException e) {
            return url;
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
}
