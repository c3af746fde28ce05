package io.delayq.service.schedules;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.Callback;
import io.delayq.core.schedule.Fire;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.service.api.CallbackSpec;
import io.delayq.service.api.HeaderValues;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A schedule as the API shows it: its definition (callback header values masked: they are write-only), when it fires
 * next, and its last fires, newest first. Fire times are written in the schedule's zone, so that a wall-clock time
 * reads as the cron says; the other times in UTC.
 *
 * @param nextFireTimes the next (up to {@value #NEXT_FIRES}) fires; empty when paused or past its end
 * @param lastFires     its last fires (at most 20), newest first, each with the job it enqueued
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScheduleView(String topic, String name, String cron, String timeZone, String startAt, String endAt,
                           JobTemplate job, String misfire, String misfireAfter, boolean paused, String createdAt,
                           String updatedAt, List<String> nextFireTimes, List<FireView> lastFires) {
    static final int NEXT_FIRES = 5;

    /**
     * @param kind   {@code scheduled} (on time), {@code catch_up} (one job for {@code missed} fires, misfire
     *               {@code once}), {@code skipped} ({@code missed} fires dropped, misfire {@code skip}) or
     *               {@code run_now}
     * @param jobId  the job it enqueued; absent when none
     * @param missed how many cron times it stands for
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FireView(String fireAt, String kind, String jobId, int missed, String recordedAt) {
    }

    static ScheduleView of(ScheduleRecord record, CheckedSchedule schedule) {
        ScheduleRequest d = schedule.definition();
        ZoneId zone = schedule.cron().zone();
        List<String> next = schedule.paused() ? List.of()
                : schedule.cron().nextAfter(record.cursorMs(), NEXT_FIRES).stream().map(t -> zoned(t, zone)).toList();
        List<FireView> fires = new ArrayList<>();
        for (int i = record.fires().size() - 1; i >= 0; i--) {
            Fire f = record.fires().get(i);
            fires.add(new FireView(zoned(f.fireAtMs(), zone), f.kind().name().toLowerCase(Locale.ROOT), f.jobId(),
                    f.missed(), Instant.ofEpochMilli(f.recordedMs()).toString()));
        }
        JobTemplate t = d.job();
        JobTemplate shown = new JobTemplate(t.payload(), masked(t.callback()), t.maxAttempts(), t.backoff(),
                t.timeout(), t.broadcast(), masked(t.onDead()));
        return new ScheduleView(record.topic(), record.name(), d.cron(), d.timeZone(), d.startAt(), d.endAt(), shown,
                d.misfire(), d.misfireAfter().toString(), schedule.paused(),
                Instant.ofEpochMilli(record.createdAtMs()).toString(),
                Instant.ofEpochMilli(record.updatedAtMs()).toString(), next, fires);
    }

    private static CallbackSpec masked(CallbackSpec spec) {
        if (spec == null || spec.headers() == null) {
            return spec;
        }
        Callback masked = HeaderValues.masked(new Callback(spec.url(), spec.headers()));
        return new CallbackSpec(masked.url(), masked.headers());
    }

    static String zoned(long ms, ZoneId zone) {
        return ZonedDateTime.ofInstant(Instant.ofEpochMilli(ms), zone).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }
}
