package io.delayq.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.delayq.core.Attempt;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.DeadCause;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;

import java.time.Instant;
import java.util.List;

/**
 * A job as the API shows it. Times are RFC 3339 strings in UTC.
 *
 * @param topic       the topic
 * @param id          the id
 * @param state       SCHEDULED, LEASED, SUCCEEDED, DEAD or CANCELLED
 * @param runAt       when it is (or was) due
 * @param payload     the payload, verbatim
 * @param attempts    attempts started so far
 * @param maxAttempts attempts allowed in all
 * @param callback    its own callback, when it has one; header values masked ({@link HeaderValues})
 * @param backoff     its own backoff, when it has one
 * @param timeoutMs   its own attempt timeout in ms, when it has one
 * @param broadcast   whether it goes to every event subscriber
 * @param delivery    PUSH (the service delivers it) or PULL (it waits for consumers)
 * @param createdAt   when it was first accepted
 * @param finishedAt  when it reached a final state
 * @param lastError   the last failure
 * @param history     the last attempts, oldest first
 * @param traceparent the W3C traceparent it was enqueued with, when any
 * @param tracestate  the tracestate that came with it, when any
 * @param onDead      its own dead-notice target, when it has one (on a dead letter: the target that applied);
 *                    header values masked
 * @param cause       why it is DEAD ({@code ATTEMPTS_EXHAUSTED}, {@code EXPIRED}, {@code NO_RETRY}, {@code NO_CALLBACK},
 *                    {@code LEASE_EXPIRED}, {@code UNREADABLE}); absent unless dead
 * @param expiresAt   its own expiry, when it has one: not delivered by then, it is dead with cause EXPIRED
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobView(
        String topic,
        String id,
        JobState state,
        String runAt,
        @JsonRawValue String payload,
        int attempts,
        int maxAttempts,
        Callback callback,
        Backoff backoff,
        Long timeoutMs,
        boolean broadcast,
        Delivery delivery,
        String createdAt,
        String finishedAt,
        String lastError,
        List<AttemptView> history,
        String traceparent,
        String tracestate,
        Callback onDead,
        DeadCause cause,
        String expiresAt) {

    /**
     * One finished attempt, as the API shows it (times in RFC 3339 like the job's own).
     *
     * @param number     1-based attempt number
     * @param at         when it ended
     * @param error      why it failed; absent for the successful attempt
     * @param httpStatus the status of a failed attempt that got an HTTP answer
     * @param held       true when this was no attempt but a hold: an open circuit breaker postponed the job, the
     *                   attempt number was given back, and {@code error} says why
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AttemptView(int number, String at, String error, Integer httpStatus, Boolean held) {
        static AttemptView of(Attempt attempt) {
            return new AttemptView(attempt.number(), time(attempt.at()), attempt.error(), attempt.httpStatus(),
                    attempt.held());
        }
    }

    public static JobView of(Job job) {
        return new JobView(job.topic(), job.id(), job.state(), time(job.runAt()), job.payload(), job.attempts(),
                job.maxAttempts(), HeaderValues.masked(job.callback()), job.backoff(), job.timeoutMs(), job.broadcast(),
                job.delivery(),
                time(job.createdAt()), job.finishedAt() == null ? null : time(job.finishedAt()), job.lastError(),
                job.history().isEmpty() ? null : job.history().stream().map(AttemptView::of).toList(),
                job.trace() == null ? null : job.trace().traceparent(),
                job.trace() == null ? null : job.trace().tracestate(), HeaderValues.masked(job.onDead()),
                job.deadCause(), job.expiresAt() == null ? null : time(job.expiresAt()));
    }

    public static String time(long epochMs) {
        return Instant.ofEpochMilli(epochMs).toString();
    }
}
