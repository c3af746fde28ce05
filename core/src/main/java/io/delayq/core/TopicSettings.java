package io.delayq.core;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Per-topic settings, shared by every service instance through the store. Every field may be {@code null}, meaning
 * "the service default".
 *
 * @param callback         default callback for jobs that name none
 * @param maxAttempts      attempts allowed for jobs that do not override it
 * @param backoff          backoff for jobs that do not override it
 * @param timeoutMs        lease length of one attempt for jobs that do not override it
 * @param paused           when true, nothing of the topic is delivered (jobs keep accumulating)
 * @param archiveSucceeded when true, succeeded jobs are written to the archive's history as well
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicSettings(
        Callback callback,
        Integer maxAttempts,
        Backoff backoff,
        Long timeoutMs,
        Boolean paused,
        Boolean archiveSucceeded) {

    public static TopicSettings empty() {
        return new TopicSettings(null, null, null, null, null, null);
    }

    public boolean isPaused() {
        return Boolean.TRUE.equals(paused);
    }

    public boolean isArchiveSucceeded() {
        return Boolean.TRUE.equals(archiveSucceeded);
    }
}
