package io.delayq.service.schedules;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.dropwizard.util.Duration;

/**
 * The body of {@code PUT /v1/topics/{topic}/schedules/{name}}, and (with its defaults filled in) the definition the
 * store keeps. A PUT replaces the whole schedule.
 *
 * @param cron         six fields, seconds first ({@code "0 0 2 * * *"}); required
 * @param timeZone     an IANA zone ({@code "Europe/Berlin"}) the cron's wall-clock times are in; default {@code UTC}
 * @param startAt      no fire before this RFC 3339 time; default: none
 * @param endAt        no fire after it; default: none
 * @param job          what each fire enqueues; required
 * @param misfire      {@code skip} (default): fires missed are dropped; {@code once}: one job for all of them
 * @param misfireAfter a fire not enqueued within this long after its time is missed; default {@code 1m}
 * @param paused       no fires while true (resuming starts from then: fires missed while paused are not made up)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScheduleRequest(
        String cron,
        String timeZone,
        String startAt,
        String endAt,
        JobTemplate job,
        String misfire,
        Duration misfireAfter,
        Boolean paused) {

    /** The same schedule with another job template. */
    public ScheduleRequest withJob(JobTemplate value) {
        return new ScheduleRequest(cron, timeZone, startAt, endAt, value, misfire, misfireAfter, paused);
    }

    /** The same schedule, paused or not. */
    public ScheduleRequest withPaused(boolean value) {
        return new ScheduleRequest(cron, timeZone, startAt, endAt, job, misfire, misfireAfter, value);
    }
}
