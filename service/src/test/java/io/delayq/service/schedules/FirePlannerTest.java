package io.delayq.service.schedules;

import io.delayq.core.schedule.Fire;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.jobs.RawJson;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fire times and the step a scheduler takes, at fixed clocks: DST changes in real zones (java.time's rules), and
 * the misfire policies. No store: what the store does with a plan is the contract's part.
 */
class FirePlannerTest {
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    private static long at(String rfc3339) {
        return OffsetDateTime.parse(rfc3339).toInstant().toEpochMilli();
    }

    private static CheckedSchedule schedule(String cron, String zone, String misfire, String misfireAfter) {
        return CheckedSchedule.of(new ScheduleRequest(cron, zone, null, null,
                new JobTemplate(new RawJson("{}"), null, null, null, null, null, null), misfire,
                misfireAfter == null ? null : Duration.parse(misfireAfter), null));
    }

    @Test
    void onAFallBackAWallClockTimeFiresOnceAtItsFirstOccurrence() {
        // 2026-11-01: New York goes from 02:00 EDT back to 01:00 EST, so 01:30 happens twice
        CronSchedule daily = CronSchedule.of("0 30 1 * * *", NEW_YORK, null, null);
        long first = daily.nextAfter(at("2026-10-31T12:00:00-04:00")).orElseThrow();
        assertThat(first).isEqualTo(at("2026-11-01T01:30:00-04:00"));
        assertThat(daily.nextAfter(first)).contains(at("2026-11-02T01:30:00-05:00"));
        // a cursor in the repeated hour (a PUT made then) does not fire 01:30 a second time
        assertThat(daily.nextAfter(at("2026-11-01T01:10:00-05:00"))).contains(at("2026-11-02T01:30:00-05:00"));

        CronSchedule everyMinute = CronSchedule.of("0 * * * * *", NEW_YORK, null, null);
        long lastBefore = at("2026-11-01T01:59:00-04:00");
        assertThat(everyMinute.nextAfter(lastBefore)).contains(at("2026-11-01T02:00:00-05:00"));
    }

    @Test
    void aSpringForwardGapFiresAtTheNextValidInstantOnce() {
        // 2026-03-08: New York goes from 02:00 EST to 03:00 EDT; 02:30 does not exist that day
        CronSchedule daily = CronSchedule.of("0 30 2 * * *", NEW_YORK, null, null);
        long gapFire = daily.nextAfter(at("2026-03-07T12:00:00-05:00")).orElseThrow();
        assertThat(Instant.ofEpochMilli(gapFire)).isEqualTo(Instant.parse("2026-03-08T07:00:00Z")); // 03:00 EDT
        assertThat(daily.nextAfter(gapFire)).contains(at("2026-03-09T02:30:00-04:00"));

        // every quarter hour: 02:00, 02:15, 02:30, 02:45 and 03:00 are one fire at 03:00 EDT, then 03:15
        CronSchedule quarters = CronSchedule.of("0 */15 * * * *", NEW_YORK, null, null);
        assertThat(quarters.nextAfter(at("2026-03-08T01:45:00-05:00"), 3))
                .containsExactly(at("2026-03-08T03:00:00-04:00"), at("2026-03-08T03:15:00-04:00"),
                        at("2026-03-08T03:30:00-04:00"));

        // the nightly report at 02:00 Berlin time on the night Berlin skips 02:00-03:00
        CronSchedule berlin = CronSchedule.of("0 0 2 * * *", ZoneId.of("Europe/Berlin"), null, null);
        assertThat(berlin.nextAfter(at("2026-03-28T12:00:00+01:00"), 3)).containsExactly(
                at("2026-03-29T03:00:00+02:00"), at("2026-03-30T02:00:00+02:00"), at("2026-03-31T02:00:00+02:00"));
    }

    @Test
    void startAtAndEndAtBoundTheFires() {
        long start = at("2026-06-01T00:00:10Z");
        long end = at("2026-06-01T00:00:12Z");
        CronSchedule s = CronSchedule.of("* * * * * *", ZoneId.of("UTC"), start, end);
        assertThat(s.nextAfter(at("2026-06-01T00:00:00Z"), 10)).containsExactly(start, start + 1000, end);
    }

    @Test
    void anOnTimeFireEnqueuesAtItsTimeAndAdvancesByOne() {
        CheckedSchedule s = schedule("* * * * * *", null, null, null);
        long t = at("2026-06-01T00:00:00Z");
        FirePlan plan = FirePlanner.plan(s, t, t + 1000, t + 1200).orElseThrow();
        assertThat(plan.kind()).isEqualTo(Fire.Kind.SCHEDULED);
        assertThat(plan.newCursorMs()).isEqualTo(t + 1000);
        assertThat(plan.jobRunAtMs()).isEqualTo(t + 1000);
        assertThat(plan.dueAtMs()).isEqualTo(t + 2000);
        assertThat(plan.withJob()).isTrue();
        // not due yet, index right: nothing to do; index stale: corrected without a fire
        assertThat(FirePlanner.plan(s, t + 1000, t + 2000, t + 1500)).isEmpty();
        FirePlan reindex = FirePlanner.plan(s, t + 1000, t + 1000, t + 1500).orElseThrow();
        assertThat(reindex.fires()).isFalse();
        assertThat(reindex.dueAtMs()).isEqualTo(t + 2000);
    }

    @Test
    void missedFiresAreSkippedAsOneStepThenTheFiresOnTimeGoOn() {
        CheckedSchedule s = schedule("* * * * * *", null, "skip", "1m");
        long t = at("2026-06-01T00:00:00Z");
        long now = t + 600_000; // ten minutes down
        FirePlan skip = FirePlanner.plan(s, t, t + 1000, now).orElseThrow();
        assertThat(skip.kind()).isEqualTo(Fire.Kind.SKIPPED);
        assertThat(skip.withJob()).isFalse();
        assertThat(skip.newCursorMs()).isEqualTo(t + 539_000); // the last fire more than a minute old
        assertThat(skip.missed()).isEqualTo(539);
        FirePlan onTime = FirePlanner.plan(s, skip.newCursorMs(), skip.dueAtMs(), now).orElseThrow();
        assertThat(onTime.kind()).isEqualTo(Fire.Kind.SCHEDULED);
        assertThat(onTime.fireAtMs()).isEqualTo(t + 540_000);
    }

    @Test
    void missedFiresMakeOneJobNowWithOnce() {
        CheckedSchedule s = schedule("0 0 * * * *", "Europe/Berlin", "once", "5m");
        long t = at("2026-06-01T00:00:00Z");
        long now = t + 3 * 3_600_000 + 60_000; // three hourly fires missed, the last one minute ago is on time
        FirePlan once = FirePlanner.plan(s, t, t + 3_600_000, now).orElseThrow();
        assertThat(once.kind()).isEqualTo(Fire.Kind.CATCH_UP);
        assertThat(once.withJob()).isTrue();
        assertThat(once.jobRunAtMs()).isEqualTo(now);
        assertThat(once.missed()).isEqualTo(2);
        assertThat(once.newCursorMs()).isEqualTo(t + 2 * 3_600_000);
        FirePlan third = FirePlanner.plan(s, once.newCursorMs(), once.dueAtMs(), now).orElseThrow();
        assertThat(third.kind()).isEqualTo(Fire.Kind.SCHEDULED);
        assertThat(third.fireAtMs()).isEqualTo(t + 3 * 3_600_000);
    }

    @Test
    void aPausedScheduleIsTakenOutOfTheDueIndex() {
        CheckedSchedule s = CheckedSchedule.of(schedule("* * * * * *", null, null, null).definition()
                .withPaused(true));
        assertThat(FirePlanner.plan(s, 0, 1000L, 5000).orElseThrow().dueAtMs()).isNull();
        assertThat(FirePlanner.plan(s, 0, null, 5000)).isEmpty();
    }

    @Test
    void badFieldsAreNamed() {
        assertThatThrownBy(() -> schedule("0 0 25 * * *", null, null, null))
                .isInstanceOfSatisfying(InvalidFieldsException.class, e -> assertThat(e.fields()).containsExactly("cron"));
        assertThatThrownBy(() -> schedule("0 0 2 * * *", "Mars/Olympus", null, null))
                .isInstanceOfSatisfying(InvalidFieldsException.class,
                        e -> assertThat(e.fields()).containsExactly("timeZone"));
        assertThatThrownBy(() -> schedule("0 0 2 * * *", null, "twice", null))
                .isInstanceOfSatisfying(InvalidFieldsException.class,
                        e -> assertThat(e.fields()).containsExactly("misfire"));
        assertThatThrownBy(() -> schedule("0 0 2 * * *", null, null, "10ms"))
                .isInstanceOfSatisfying(InvalidFieldsException.class,
                        e -> assertThat(e.fields()).containsExactly("misfireAfter"));
    }
}
