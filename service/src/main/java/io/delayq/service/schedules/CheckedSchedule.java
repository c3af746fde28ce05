package io.delayq.service.schedules;

import io.delayq.core.JobRules;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.http.Times;
import io.dropwizard.util.Duration;

import java.time.DateTimeException;
import java.time.ZoneId;

/**
 * A schedule's definition, checked: its cron in its zone between its start and end, its misfire policy and its
 * template. Built from a PUT's body (each field's fault a 400 {@code invalid-fields} naming it; the job's a 422 as for
 * a job) and again from the stored definition at each fire.
 *
 * @param definition the request with its defaults filled in: what the store keeps and views show
 */
public record CheckedSchedule(ScheduleRequest definition, CronSchedule cron, Misfire misfire, long misfireAfterMs,
                              boolean paused) {
    /** The default of {@code misfireAfter}. */
    public static final Duration DEFAULT_MISFIRE_AFTER = Duration.minutes(1);
    private static final ZoneId UTC = ZoneId.of("UTC");
    /** The shortest {@code misfireAfter}: a fire takes a scheduler tick or two to be enqueued. */
    public static final long MIN_MISFIRE_AFTER_MS = 1_000;

    public static CheckedSchedule of(ScheduleRequest request) {
        if (request == null) {
            throw new InvalidFieldsException("a JSON object is required, e.g. {\"cron\": \"0 0 2 * * *\","
                    + " \"timeZone\": \"Europe/Berlin\", \"job\": {\"payload\": {}}}", "cron", "job");
        }
        ZoneId zone = zone(request.timeZone());
        Long startAt = time("startAt", request.startAt());
        Long endAt = time("endAt", request.endAt());
        if (startAt != null && endAt != null && endAt <= startAt) {
            throw new InvalidFieldsException("endAt (" + request.endAt() + ") must be after startAt ("
                    + request.startAt() + ")", "endAt");
        }
        CronSchedule cron;
        try {
            cron = CronSchedule.of(request.cron(), zone, startAt, endAt);
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldsException(e.getMessage(), "cron");
        }
        if (request.job() == null) {
            throw new InvalidFieldsException("job is required: what each fire enqueues, e.g. {\"payload\":"
                    + " {\"report\": \"nightly\"}}", "job");
        }
        Misfire misfire = Misfire.parse(request.misfire());
        Duration after = request.misfireAfter() == null ? DEFAULT_MISFIRE_AFTER : request.misfireAfter();
        if (after.toMilliseconds() < MIN_MISFIRE_AFTER_MS) {
            throw new InvalidFieldsException("misfireAfter is " + after + "; it must be at least 1s", "misfireAfter");
        }
        boolean paused = Boolean.TRUE.equals(request.paused());
        ScheduleRequest filled = new ScheduleRequest(cron.expression(), zone.getId(), request.startAt(),
                request.endAt(), request.job(), misfire.wire(), after, paused);
        return new CheckedSchedule(filled, cron, misfire, after.toMilliseconds(), paused);
    }

    private static ZoneId zone(String text) {
        if (text == null) {
            return UTC; // named "UTC" in views, not ZoneOffset.UTC's "Z"
        }
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            throw new InvalidFieldsException("timeZone " + JobRules.quote(text) + " is not a time zone; use an IANA"
                    + " name such as \"Europe/Berlin\" or \"America/New_York\", or \"UTC\"", "timeZone");
        }
    }

    private static Long time(String field, String text) {
        if (text == null) {
            return null;
        }
        try {
            return Times.parseRfc3339(field, text);
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldsException(e.getMessage(), field);
        }
    }
}
