package io.delayq.service.delivery;

import io.delayq.core.Delivery;
import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The expiry sweep (issue 29). Reserves make due jobs past their expiry dead (cause EXPIRED) as they meet them, so
 * nothing delivers an expired job; this is only so that jobs nobody reserves — a paused topic, a pull lane without
 * consumers, a lane held back by a rate limit or a long backlog — still end when they expire, with their dead notice
 * and their count, rather than when someone next reserves them.
 *
 * <p>It runs on a thread of its own every {@link #intervalMs} (ten safety sweeps, at least 5 s), never on the engine's
 * timer threads, whose due and lease timers must not wait behind it. A lane is swept only when its earliest due job has
 * waited longer than that interval (one O(log N) read tells), so lanes that keep up cost one read per round; a swept
 * lane costs one store call that reads at most {@value #PER_LANE} of its earliest due jobs. With a topic's
 * {@code expiresAfter} (expiry = run time + a constant) the earliest due jobs are the first to expire, so each round
 * takes the expired ones in order; a job's own {@code expiresAt} far behind unexpired ones waits for later rounds or a
 * reserve.
 */
final class ExpirySweep {
    private static final Logger LOG = LoggerFactory.getLogger(ExpirySweep.class);
    /** Due jobs looked at per lane and round. */
    static final int PER_LANE = 100;
    private static final long MIN_INTERVAL_MS = 5_000;

    private final JobStore store;
    private final DeliveryMetrics metrics;
    private final StoreErrorLog errors;
    private final long intervalMs;
    private ScheduledExecutorService thread;

    ExpirySweep(JobStore store, DeliveryMetrics metrics, StoreErrorLog errors, long safetySweepMs) {
        this.store = store;
        this.metrics = metrics;
        this.errors = errors;
        this.intervalMs = Math.max(MIN_INTERVAL_MS, 10 * safetySweepMs);
    }

    /** The topic's {@code expiresAfter} as the store's reserve takes it: 0 for none. */
    static long expiresAfter(TopicSettings settings) {
        Long ms = settings.expiresAfterMs();
        return ms == null ? 0 : ms;
    }

    void start() {
        thread = Executors.newSingleThreadScheduledExecutor(Threads.named("delayq-expiry-sweep", true));
        thread.scheduleWithFixedDelay(this::round, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }

    /** One round over every topic; a failure is logged and the next round tries again. */
    void round() {
        try {
            long now = store.now();
            for (String topic : store.topics()) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                sweep(topic, now);
            }
        } catch (RuntimeException e) {
            errors.log("sweep expired jobs", e);
        }
    }

    private void sweep(String topic, long now) {
        boolean push = backlogged(store.nextDueAt(topic, Delivery.PUSH), now);
        boolean pull = backlogged(store.nextDueAt(topic, Delivery.PULL), now);
        if (!push && !pull) {
            return;
        }
        long after = expiresAfter(store.settings(topic));
        int expired = 0;
        if (push) {
            expired += store.expireOverdue(topic, Delivery.PUSH, PER_LANE, after);
        }
        if (pull) {
            expired += store.expireOverdue(topic, Delivery.PULL, PER_LANE, after);
        }
        if (expired > 0) {
            LOG.info("{} job(s) of topic {} expired before anyone reserved them: dead, cause EXPIRED", expired, topic);
            metrics.expired(topic, expired);
        }
    }

    private boolean backlogged(long earliestDue, long now) {
        return earliestDue >= 0 && earliestDue < now - intervalMs;
    }
}
