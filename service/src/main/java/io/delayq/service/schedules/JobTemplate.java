package io.delayq.service.schedules;

import io.delayq.core.Backoff;
import io.delayq.service.api.CallbackSpec;
import io.delayq.service.jobs.RawJson;
import io.dropwizard.util.Duration;

/**
 * The job each fire of a schedule enqueues: the fields of {@code POST /v1/topics/{topic}/jobs} but the id and the run
 * time, which the schedule gives (the id in the schedules' namespace, the run time the fire's). Only {@code payload}
 * is required; what is left out comes from the topic's settings when the job is enqueued.
 */
public record JobTemplate(
        RawJson payload,
        CallbackSpec callback,
        Integer maxAttempts,
        Backoff backoff,
        Duration timeout,
        Boolean broadcast,
        CallbackSpec onDead) {
}
