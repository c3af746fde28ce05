package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A recurring schedule to create or replace ({@code PUT /v1/topics/{topic}/schedules/{name}}): a PUT replaces the
 * whole schedule, so fields left {@code null} take their defaults.
 *
 * <pre>{@code
 * client.putSchedule("reports", "nightly", new ScheduleSpec("0 0 2 * * *", "Europe/Berlin", null, null,
 *         new ScheduleSpec.Job(Map.of("report", "nightly"), null, null, null, null, null, null), "skip", null, null));
 * }</pre>
 *
 * @param cron         six fields, seconds first, e.g. {@code "0 0 2 * * *"}
 * @param timeZone     an IANA zone, e.g. {@code "Europe/Berlin"}; default UTC
 * @param startAt      RFC 3339; no fire before
 * @param endAt        RFC 3339; no fire after
 * @param job          what each fire enqueues
 * @param misfire      {@code "skip"} (default) or {@code "once"}
 * @param misfireAfter a duration such as {@code "1m"} (default) or {@code "30s"}
 * @param paused       no fires while true
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScheduleSpec(String cron, String timeZone, String startAt, String endAt, Job job, String misfire,
                           String misfireAfter, Boolean paused) {

    /**
     * The job template: the fields of a job but its id and run time, which each fire gives.
     *
     * @param payload any value Jackson writes as JSON (not null)
     * @param timeout a duration such as {@code "30s"}
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Job(Object payload, Callback callback, Integer maxAttempts, Backoff backoff, String timeout,
                      Boolean broadcast, Callback onDead) {
    }
}
