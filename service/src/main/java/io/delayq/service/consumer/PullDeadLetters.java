package io.delayq.service.consumer;

import com.codahale.metrics.Meter;
import io.delayq.core.DeadCause;
import io.delayq.service.history.TopicActivity;

/**
 * Counts the pull lane's dead letters that the consumer endpoints learn of — due jobs a reserve found expired, and
 * jobs a nack or a release ended (of their expiry, a "don't retry", their last attempt) — in the meter
 * {@code delayq.jobs.expired} (the delivery engine's meter of that name) and in the topic's history, by cause.
 */
final class PullDeadLetters {
    /** Counts nothing: for tests that do not look. */
    static final PullDeadLetters NONE = new PullDeadLetters(new Meter(), TopicActivity.NONE);

    private final Meter expired;
    private final TopicActivity activity;

    PullDeadLetters(Meter expired, TopicActivity activity) {
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

    /** A job of the topic was made dead of {@code cause}. */
    void died(String topic, DeadCause cause) {
        if (cause == DeadCause.EXPIRED) {
            expired(topic, 1);
        } else {
            activity.dead(topic, cause, 1);
        }
    }
}
