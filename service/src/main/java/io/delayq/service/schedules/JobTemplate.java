package io.delayq.service.schedules;

import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.service.api.CallbackSpec;
import io.delayq.service.api.HeaderValues;
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

    /**
     * This template as a PUT sends it back, with each header value sent as the mask given the value stored under its
     * name in {@code stored} (the schedule's template as stored, or {@code null}): the round trip of an edit form, as
     * for a topic's settings ({@link HeaderValues#keepStored}, whose rules and 422s apply, the field named
     * {@code job.callback} or {@code job.onDead}). Without a mask, the template as it is.
     */
    public JobTemplate keepingStoredHeaderValues(JobTemplate stored) {
        CallbackSpec keptCallback = kept("job.callback", callback, stored == null ? null : stored.callback);
        CallbackSpec keptOnDead = kept("job.onDead", onDead, stored == null ? null : stored.onDead);
        if (keptCallback == callback && keptOnDead == onDead) {
            return this;
        }
        return new JobTemplate(payload, keptCallback, maxAttempts, backoff, timeout, broadcast, keptOnDead);
    }

    private static CallbackSpec kept(String field, CallbackSpec given, CallbackSpec stored) {
        if (given == null || given.headers() == null || !given.headers().containsValue(HeaderValues.MASK)) {
            return given; // nothing to keep: the job's own checks judge it as sent
        }
        Callback resolved = HeaderValues.keepStored(field, new Callback(given.url(), given.headers()),
                stored == null ? null : new Callback(stored.url(), stored.headers()));
        return new CallbackSpec(resolved.url(), resolved.headers());
    }
}
