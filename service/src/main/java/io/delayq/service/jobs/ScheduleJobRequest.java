package io.delayq.service.jobs;

import io.delayq.core.Backoff;
import io.delayq.service.api.CallbackSpec;
import io.dropwizard.util.Duration;

/**
 * The body of {@code POST /v1/topics/{topic}/jobs} and one item of a batch. Only {@code payload} is required.
 *
 * @param id          idempotency key, unique within the topic; generated (UUIDv7) when absent
 * @param delayMs     run this many ms after the service receives it (measured by the store's clock)
 * @param runAt       or run at this RFC 3339 time, e.g. {@code 2030-01-01T09:00:00Z}; a past time means now
 * @param payload     any JSON value; delivered verbatim (as compact JSON, numbers exactly as written)
 * @param callback    push it to this URL; else the topic's default callback; else it waits for pulling consumers
 * @param maxAttempts attempts in all before it is dead; else the topic's, else the service default
 * @param backoff     wait between attempts; else the topic's, else the service default
 * @param timeout     how long one attempt may take, as a Dropwizard duration ({@code "30s"}, {@code "2m"})
 * @param broadcast   when due, send it to every subscriber of the topic's event stream
 * @param onDead      where a signed notice goes if the job ends dead; else the topic's {@code onDead}, else none
 * @param expiresAt   not delivered by this RFC 3339 time (first attempt or retry), the job is dead with cause
 *                    {@code EXPIRED}; else the topic's {@code expiresAfter}, if any. Not before the run time.
 */
public record ScheduleJobRequest(
        String id,
        Long delayMs,
        String runAt,
        RawJson payload,
        CallbackSpec callback,
        Integer maxAttempts,
        Backoff backoff,
        Duration timeout,
        Boolean broadcast,
        CallbackSpec onDead,
        String expiresAt) {
}
