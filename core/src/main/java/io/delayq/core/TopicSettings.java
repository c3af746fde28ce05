package io.delayq.core;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.breaker.BreakerSettings;
import io.delayq.core.ratelimit.Rate;

import java.util.List;

/**
 * Per-topic settings, shared by every service instance through the store. Every field may be {@code null}, meaning
 * "the service default".
 *
 * @param callback          default callback for jobs that name none
 * @param maxAttempts       attempts allowed for jobs that do not override it
 * @param backoff           backoff for jobs that do not override it
 * @param timeoutMs         lease length of one attempt for jobs that do not override it
 * @param paused            when true, nothing of the topic is delivered (jobs keep accumulating)
 * @param archiveSucceeded  when true, succeeded jobs are written to the archive's history as well
 * @param onDead            where a signed notice goes when a job of the topic becomes {@link JobState#DEAD}, for jobs
 *                          that do not name their own
 * @param breaker           the endpoint circuit breaker for the topic's callbacks, over the service default
 * @param asyncAckTimeoutMs how long a callback that answered {@code 202 Accepted} has to confirm the job through the
 *                          ack/nack endpoints before the attempt counts as failed
 * @param asyncAck          when true, every {@code 202 Accepted} of the topic's callbacks means "confirmed later";
 *                          otherwise only a 202 with {@code Delayq-Async-Ack: true} does, and any other 202 is an ack
 * @param errorBodies       when true, a failed attempt's error ({@code lastError}, the history, a dead notice's
 *                          {@code lastError}) quotes the start of the receiver's error answer; otherwise only its
 *                          status, since a callback may point at an internal service whose errors are not the
 *                          producer's to read
 * @param rateLimit         deliveries and pull leases of the topic, at most this rate over all instances together;
 *                          jobs over it wait without using an attempt
 * @param expiresAfterMs    a job of the topic not delivered this long after its current run time is not delivered:
 *                          it becomes dead with cause {@code EXPIRED} (a job's own {@code expiresAt} comes first)
 * @param noRetryStatuses   callback answers that end a job at once (dead with cause {@code NO_RETRY}), e.g. 410
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicSettings(
        Callback callback,
        Integer maxAttempts,
        Backoff backoff,
        Long timeoutMs,
        Boolean paused,
        Boolean archiveSucceeded,
        Callback onDead,
        BreakerSettings breaker,
        Long asyncAckTimeoutMs,
        Boolean asyncAck,
        Boolean errorBodies,
        Rate rateLimit,
        Long expiresAfterMs,
        List<Integer> noRetryStatuses) {

    /** Settings before rate limits, expiry and "don't retry" answers. */
    public TopicSettings(Callback callback, Integer maxAttempts, Backoff backoff, Long timeoutMs, Boolean paused,
                         Boolean archiveSucceeded, Callback onDead, BreakerSettings breaker, Long asyncAckTimeoutMs,
                         Boolean asyncAck, Boolean errorBodies) {
        this(callback, maxAttempts, backoff, timeoutMs, paused, archiveSucceeded, onDead, breaker, asyncAckTimeoutMs,
                asyncAck, errorBodies, null, null, null);
    }

    /** Settings without the delivery protections (the form before dead notices, breakers and async acks existed). */
    public TopicSettings(Callback callback, Integer maxAttempts, Backoff backoff, Long timeoutMs, Boolean paused,
                         Boolean archiveSucceeded) {
        this(callback, maxAttempts, backoff, timeoutMs, paused, archiveSucceeded, null, null, null, null, null);
    }

    public static TopicSettings empty() {
        return new TopicSettings(null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    }

    public TopicSettings {
        noRetryStatuses = noRetryStatuses == null ? null : List.copyOf(noRetryStatuses);
    }

    public boolean isPaused() {
        return Boolean.TRUE.equals(paused);
    }

    public boolean isArchiveSucceeded() {
        return Boolean.TRUE.equals(archiveSucceeded);
    }

    /**
     * Whether every 202 of the topic's callbacks is an asynchronous acknowledgement (not only one that says so). Not
     * named {@code isAsyncAck}: Jackson would take that for the property and store {@code false} for "not set".
     */
    public boolean acceptedIsAsync() {
        return Boolean.TRUE.equals(asyncAck);
    }

    /** Whether errors may quote the receiver's error answer ({@code errorBodies: true}); named as above for Jackson. */
    public boolean showsErrorBodies() {
        return Boolean.TRUE.equals(errorBodies);
    }
}
