package io.delayq.service.delivery;

import com.codahale.metrics.health.HealthCheck;
import io.delayq.core.JobStore;
import io.delayq.core.StoreListener;
import io.delayq.core.TopicTimes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * How the engine hears of due jobs besides its own timers: the store's wake-ups ({@link StoreListener#onWake}: a job
 * scheduled ahead of everything else in its topic, on any instance) arm the topic's due timer; and a slow safety sweep
 * ({@code sweepInterval}) over {@code topics()} reads {@code nextDueAt(topic, PUSH)} and {@code nextLeaseDeadline}
 * of each topic, for wake-ups lost while the subscription reconnected and for leases nobody armed a timer for (a
 * crash of another instance). Its cost is three O(log N) reads per topic per interval (each lane's earliest job and
 * the earliest lease: {@link JobStore#times}, shared with the expiry sweep), whatever the load, read {@value #PAGE}
 * topics at a time in one store call: a round trip per page, not per read.
 *
 * <p>The sweep also re-subscribes when the subscription could not be made, and is what the {@code engine} health
 * check looks at.
 */
final class SafetySweep {
    private static final Logger LOG = LoggerFactory.getLogger(SafetySweep.class);
    /** Topics read per store call. */
    static final int PAGE = 500;

    private final JobStore store;
    private final TopicStates topics;
    private final TopicTimers timers;
    private final StoreErrorLog errors;
    private final long sweepMs;
    private volatile AutoCloseable subscription;
    private volatile long lastSweepAt;
    private volatile String lastSweepError;

    SafetySweep(JobStore store, TopicStates topics, TopicTimers timers, StoreErrorLog errors, long sweepMs) {
        this.store = store;
        this.topics = topics;
        this.timers = timers;
        this.errors = errors;
        this.sweepMs = sweepMs;
    }

    /** Subscribes to wake-ups and starts sweeping (the first sweep at once) on the timer threads. */
    void start() {
        subscribe();
        timers.every(this::sweep, sweepMs);
    }

    /** Unsubscribes; call once the timers have stopped, so that a last sweep cannot subscribe again. */
    void stop() {
        AutoCloseable s = subscription;
        subscription = null;
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (Exception e) {
            LOG.debug("closing the store subscription failed", e);
        }
    }

    /** The sweep's part of the {@code engine} health check; null while it is healthy. */
    HealthCheck.Result unhealthy() {
        String error = lastSweepError;
        if (error != null) {
            return HealthCheck.Result.unhealthy("the delivery engine's last sweep failed: " + error);
        }
        long age = System.currentTimeMillis() - lastSweepAt;
        if (lastSweepAt == 0 || age > 3 * sweepMs + 1_000) {
            return HealthCheck.Result.unhealthy("the delivery engine's safety sweep has not completed for " + age
                    + " ms (expected every " + sweepMs + " ms)");
        }
        return null;
    }

    long lastSweepAgeMs() {
        return System.currentTimeMillis() - lastSweepAt;
    }

    private void subscribe() {
        try {
            subscription = store.subscribe(new StoreListener() {
                @Override
                public void onWake(String topic, long dueAt) {
                    if (timers.running()) {
                        timers.armDue(topics.of(topic), dueAt, Long.MIN_VALUE);
                    }
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("delivery engine could not subscribe to the store's wake-ups ({}); retrying at every sweep,"
                    + " due jobs are found by the sweep meanwhile", e.toString());
        }
    }

    private void sweep() {
        if (!timers.running()) {
            return;
        }
        if (subscription == null) {
            subscribe();
        }
        try {
            for (List<String> page : Pages.of(store.topics(), PAGE)) {
                for (TopicTimes times : store.times(page).values()) {
                    if (!timers.running()) {
                        return;
                    }
                    TopicState ts = topics.of(times.topic());
                    if (times.pushDueAt() >= 0) {
                        timers.armDue(ts, times.pushDueAt(), Long.MIN_VALUE);
                    }
                    if (times.leaseDeadline() >= 0) {
                        timers.armLease(ts, times.leaseDeadline(), Long.MIN_VALUE);
                    }
                }
            }
            lastSweepError = null;
            lastSweepAt = System.currentTimeMillis();
        } catch (RuntimeException e) {
            lastSweepError = e.toString();
            errors.log("sweep topics", e);
        }
    }
}
