package io.delayq.service.consumer;

import com.codahale.metrics.Meter;
import io.delayq.core.DeadCause;
import io.delayq.core.Failure;
import io.delayq.core.NackOutcome;
import io.delayq.core.StoreStatus;
import io.delayq.service.history.TopicActivity;

/**
 * Counts what the consumer endpoints learn of the pull lane's jobs, for the topic's history ({@link TopicActivity}):
 * the dead letters — due jobs a reserve found expired, and jobs a nack or a release ended (of their expiry, a "don't
 * retry", their last attempt) — by cause, those of cause EXPIRED also in the meter {@code delayq.jobs.expired} (the
 * delivery engine's meter of that name).
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

    /** {@code count} jobs of the topic were made dead because their expiry passed. */
    void expired(String topic, int count) {
        if (count > 0) {
            expired.mark(count);
            activity.dead(topic, DeadCause.EXPIRED, count);
        }
    }

    /**
     * The store recorded a nack or a release of {@code failure} with {@code outcome}: counts the dead letter it made,
     * if any, of the failure's cause, or EXPIRED when the job would have come back only after its expiry. Nothing when
     * the store refused it (a stale token, a job gone).
     */
    void recorded(String topic, Failure failure, NackOutcome outcome) {
        if (outcome.status() != StoreStatus.OK) {
            return;
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
