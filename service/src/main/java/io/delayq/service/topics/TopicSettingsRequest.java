package io.delayq.service.topics;

import io.delayq.core.Backoff;
import io.delayq.service.api.CallbackSpec;
import io.delayq.service.ratelimit.RateLimitSpec;
import io.dropwizard.util.Duration;

/**
 * The body of {@code PUT /v1/topics/{topic}}. Fields left out keep their current value; a field sent as
 * {@code null} goes back to the service default. {@code {"paused": false}} alone resumes a topic.
 *
 * @param callback         default callback of jobs that name none (applies to jobs scheduled from now on)
 * @param maxAttempts      attempts of jobs that do not say (applies to jobs scheduled from now on)
 * @param backoff          backoff of jobs that do not say
 * @param timeout          attempt timeout of jobs that do not say, e.g. {@code "30s"}
 * @param paused           stop delivering the topic's jobs (they keep their place) / resume
 * @param archiveSucceeded also write succeeded jobs to the archive
 * @param onDead           where a signed notice goes when a job of the topic is dead, for jobs that name none
 * @param breaker          the topic's endpoint circuit breaker (replaces it whole; {@code null}: service default)
 * @param asyncAckTimeout  how long a callback that answered {@code 202 Accepted} has to ack or nack, e.g.
 *                         {@code "10m"}
 * @param asyncAck         every 202 of the topic's callbacks means "confirmed later through ack/nack"; without it
 *                         only a 202 with {@code Delayq-Async-Ack: true} does, any other 202 is an ack
 * @param errorBodies      errors of failed attempts quote the start of the receiver's error answer (default: the
 *                         status only)
 * @param rateLimit        {@code {perSecond, burst}}: deliveries and pull leases of the topic, at most this rate over
 *                         all instances together; jobs over it wait without using an attempt ({@code null}: none)
 * @param expiresAfter     a job not delivered this long after its run time (first attempt or retry) is dead with
 *                         cause {@code EXPIRED}, e.g. {@code "3h"}; a job's own {@code expiresAt} comes first
 * @param noRetryStatuses  callback answers that end a job at once, dead with cause {@code NO_RETRY}, e.g.
 *                         {@code [400, 404, 410, 422]}
 */
public record TopicSettingsRequest(CallbackSpec callback, Integer maxAttempts, Backoff backoff, Duration timeout,
                                   Boolean paused, Boolean archiveSucceeded, CallbackSpec onDead, BreakerSpec breaker,
                                   Duration asyncAckTimeout, Boolean asyncAck,
                                   Boolean errorBodies,
                                   RateLimitSpec rateLimit, Duration expiresAfter,
                                   java.util.List<Integer> noRetryStatuses) {
}
