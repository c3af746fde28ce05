package io.delayq.service.delivery;

import io.delayq.core.Delivery;
import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;

/**
 * The safety sweep's part for expiry (issue 29): reserves make due jobs past their expiry dead (cause EXPIRED) as they
 * meet them, so this is only for jobs nobody reserves — a paused topic, a pull lane without consumers, a lane held
 * back by a rate limit or a long backlog. A lane is swept only when its earliest due job has waited longer than a
 * sweep interval (one O(log N) read tells), so a lane that keeps up costs nothing more; a swept lane costs one store
 * call that reads at most {@value #PER_LANE} of its earliest due jobs.
 */
final class ExpirySweep {
    /** Due jobs looked at per lane and sweep. */
    static final int PER_LANE = 200;

    private final JobStore store;
    private final DeliveryMetrics metrics;
    private final long sweepMs;

    ExpirySweep(JobStore store, DeliveryMetrics metrics, long sweepMs) {
        this.store = store;
        this.metrics = metrics;
        this.sweepMs = sweepMs;
    }

    /** The topic's {@code expiresAfter} as the store's reserve takes it: 0 for none. */
    static long expiresAfter(TopicSettings settings) {
        Long ms = settings.expiresAfterMs();
        return ms == null ? 0 : ms;
    }

    /**
     * Sweeps the topic's lanes whose earliest due job is older than a sweep interval.
     *
     * @param pushDue the push lane's earliest run time as the sweep just read it ({@code -1}: none)
     * @param now     the store's clock, epoch ms
     */
    void sweep(String topic, long pushDue, long now) {
        long pullDue = store.nextDueAt(topic, Delivery.PULL);
        boolean push = pushDue >= 0 && pushDue < now - sweepMs;
        boolean pull = pullDue >= 0 && pullDue < now - sweepMs;
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
        metrics.expired(expired);
    }
}
