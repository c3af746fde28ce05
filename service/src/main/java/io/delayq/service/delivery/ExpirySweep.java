package io.delayq.service.delivery;

import io.delayq.core.Delivery;
import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;
import io.delayq.core.TopicTimes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * expired by the topic's {@code expiresAfter} or has waited longer than that interval (one O(log N) read tells, read
 * for {@value SafetySweep#PAGE} topics per store call, then the settings of those with due work in one more), so lanes
 * that keep up cost one read per round; a swept lane costs one store call that reads at most {@value #PER_LANE} of its
 * earliest due jobs. A job expired by its topic's {@code expiresAfter} thus ends at most one interval (and a round's
 * time) after its expiry. With a topic's
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

    /**
     * One round over every topic. A failure is logged and the round goes on with the next topic: one topic whose sweep
     * keeps failing must not stop the expiry of every topic after it in the list. A round longer than its interval is
     * logged: expired jobs nobody reserves then end that much later.
     */
    void round() {
        long started = System.nanoTime();
        long now;
        Set<String> all;
        try {
            now = store.now();
            all = store.topics();
        } catch (RuntimeException e) {
            errors.log("sweep expired jobs", e);
            return;
        }
        int swept = 0;
        for (List<String> page : Pages.of(all, SafetySweep.PAGE)) {
            List<TopicTimes> due;
            Map<String, TopicSettings> settings;
            try {
                due = store.times(page).values().stream()
                        .filter(t -> isDue(t.pushDueAt(), now) || isDue(t.pullDueAt(), now)).toList();
                // the settings of the topics with due work only, in one call for the page
                settings = due.isEmpty() ? Map.of() : store.settings(due.stream().map(TopicTimes::topic).toList());
            } catch (RuntimeException e) {
                errors.log("sweep expired jobs", e);
                continue;
            }
            for (TopicTimes t : due) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                try {
                    swept += sweep(t, settings.getOrDefault(t.topic(), TopicSettings.empty()), now);
                } catch (RuntimeException e) {
                    errors.log("sweep expired jobs of topic " + t.topic(), e);
                }
            }
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (tookMs > intervalMs) {
            LOG.warn("the expiry sweep took {} ms over {} topics ({} lanes swept), longer than its interval of {} ms:"
                    + " jobs nobody reserves expire that much later than their expiry", tookMs, all.size(), swept,
                    intervalMs);
        } else {
            LOG.debug("expiry sweep: {} ms over {} topics, {} lanes swept", tookMs, all.size(), swept);
        }
    }

    /**
     * Sweeps a lane of the topic when a due job there may have expired: its earliest due job is older than the
     * topic's {@code expiresAfter} (then that job has expired, and the sweep finds it at the next round after its
     * expiry), or has waited longer than a round (for jobs' own {@code expiresAt}, which no cheap read tells).
     * Answers how many lanes were swept.
     */
    private int sweep(TopicTimes times, TopicSettings settings, long now) {
        String topic = times.topic();
        long pushDue = times.pushDueAt();
        long pullDue = times.pullDueAt();
        long after = expiresAfter(settings);
        boolean push = mayHaveExpired(pushDue, now, after);
        boolean pull = mayHaveExpired(pullDue, now, after);
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
        return (push ? 1 : 0) + (pull ? 1 : 0);
    }

    private static boolean isDue(long earliestDue, long now) {
        return earliestDue >= 0 && earliestDue <= now;
    }

    private boolean mayHaveExpired(long earliestDue, long now, long expiresAfterMs) {
        if (!isDue(earliestDue, now)) {
            return false;
        }
        return (expiresAfterMs > 0 && earliestDue + expiresAfterMs < now) || earliestDue < now - intervalMs;
    }
}
