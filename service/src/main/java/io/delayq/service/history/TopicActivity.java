package io.delayq.service.history;

import io.delayq.core.DeadCause;

/**
 * What happens to a topic's jobs, as the service sees it, for the per-topic history ({@link TopicHistoryRecorder}).
 * Called on hot paths (once per job): implementations only count in memory.
 */
public interface TopicActivity {
    /** Does nothing: for engines and tests without a history. */
    TopicActivity NONE = new TopicActivity() {
    };

    /** {@code count} jobs were created. */
    default void enqueued(String topic, int count) {
    }

    /** An attempt started {@code latenessMs} after its job's due time. */
    default void started(String topic, long latenessMs) {
    }

    /** An attempt succeeded. */
    default void delivered(String topic) {
    }

    /** An attempt failed (retried later, or the job died: then {@link #dead} as well). */
    default void failed(String topic) {
    }

    /**
     * {@code count} jobs became dead letters of {@code cause}: after a failed attempt, or without one (a job not
     * delivered by its expiry).
     */
    default void dead(String topic, DeadCause cause, int count) {
    }
}
