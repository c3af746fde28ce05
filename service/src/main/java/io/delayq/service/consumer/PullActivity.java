package io.delayq.service.consumer;

import com.codahale.metrics.Meter;
import io.delayq.core.DeadCause;
import io.delayq.core.Failure;
import io.delayq.core.Lease;
import io.delayq.core.NackOutcome;
import io.delayq.core.StoreStatus;
import io.delayq.service.history.TopicActivity;

import java.util.List;

/**
 * Counts what the consumer endpoints learn of a topic's jobs, for its per-minute history and the per-topic metrics
 * ({@link TopicActivity}), as the delivery engine counts its push attempts:
 * <ul>
 *   <li>each pull lease starts an attempt: its lateness is the store's time of the lease minus the job's run time;</li>
 *   <li>an ack is a delivered attempt, and a nack, or a release that uses the attempt, a failed one: of pull jobs and
 *       of push jobs whose receiver confirms later (a 202 with asynchronous acknowledgement, which the engine counts
 *       as neither), and only when the store accepted it: a stale token's confirmation counts nothing;</li>
 *   <li>the dead letters — due jobs a reserve found expired, and jobs a nack or a release ended (of their expiry, a
 *       "don't retry", their last attempt) — by cause, those of cause EXPIRED also in the meter
 *       {@code delayq.jobs.expired} (the delivery engine's meter of that name).</li>
 * </ul>
 * A free release gives the attempt back, so it counts nothing, as the engine's held nacks do; a lease that expires
 * counts nothing either, in both lanes (only its jobs made dead of their expiry: {@code LeaseExpiry}).
 */
final class PullActivity {
    /** Counts nothing: for tests that do not look. */
    static final PullActivity NONE = new PullActivity(new Meter(), TopicActivity.NONE);

    private final Meter expired;
    private final TopicActivity activity;

    PullActivity(Meter expired, TopicActivity activity) {
        this.expired = expired;
        this.activity = activity;
    }

    /**
     * The store leased these jobs of the topic at {@code nowMs} (its clock): each attempt starts, this late. A lease
     * later given back unused (its client went during the reserve) has been counted all the same.
     */
    void leased(String topic, List<Lease> leases, long nowMs) {
        for (Lease lease : leases) {
            activity.started(topic, Math.max(0, nowMs - lease.job().runAt()));
        }
    }

    /** The store accepted an ack of a job of the topic: its attempt was delivered. */
    void acked(String topic) {
        activity.delivered(topic);
    }

    /** {@code count} jobs of the topic were made dead because their expiry passed. */
    void expired(String topic, int count) {
        if (count > 0) {
            expired.mark(count);
            activity.dead(topic, DeadCause.EXPIRED, count);
        }
    }

    /**
     * The store recorded a nack or a release of {@code failure} with {@code outcome}: counts the failed attempt (unless
     * the failure gave the attempt back: a free release) and the dead letter it made, if any, of the failure's cause,
     * or EXPIRED when the job would have come back only after its expiry. Nothing when the store refused it (a stale
     * token, a job gone).
     */
    void recorded(String topic, Failure failure, NackOutcome outcome) {
        if (outcome.status() != StoreStatus.OK) {
            return;
        }
        if (!failure.held()) {
            activity.failed(topic);
        }
        if (outcome.expired()) {
            expired(topic, 1);
        } else if (failure.isDead()) {
            died(topic, failure.deadCause());
        }
    }

    /** A job of the topic was made dead of {@code cause}. */
    private void died(String topic, DeadCause cause) {
        if (cause == DeadCause.EXPIRED) {
            expired(topic, 1);
        } else {
            activity.dead(topic, cause, 1);
        }
    }
}
