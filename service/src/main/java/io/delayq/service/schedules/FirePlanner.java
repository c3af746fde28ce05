package io.delayq.service.schedules;

import io.delayq.core.schedule.Fire;

import java.util.Objects;
import java.util.Optional;

/**
 * Decides a due schedule's next step from its cursor and the store's clock; no I/O, so the DST and misfire rules are
 * unit-tested at fixed clocks. One step at a time: missed fires first (one step for all of them), then each fire on
 * time, each its own compare-and-set.
 */
final class FirePlanner {
    /** Missed fires counted one by one for the history; beyond, the count says at least this many. */
    static final int MAX_COUNTED = 10_000;

    private FirePlanner() {
    }

    /**
     * @param cursorMs the cursor read with the schedule
     * @param dueAtMs  its due time as stored
     * @return what to do, or empty when nothing is to be done (not due, index right)
     */
    static Optional<FirePlan> plan(CheckedSchedule schedule, long cursorMs, Long dueAtMs, long nowMs) {
        if (schedule.paused()) {
            return dueAtMs == null ? Optional.empty() : Optional.of(FirePlan.reindex(cursorMs, null));
        }
        CronSchedule cron = schedule.cron();
        Optional<Long> next = cron.nextAfter(cursorMs);
        if (next.isEmpty()) {
            return dueAtMs == null ? Optional.empty() : Optional.of(FirePlan.reindex(cursorMs, null));
        }
        long fireAt = next.get();
        if (fireAt > nowMs) {
            return Objects.equals(dueAtMs, fireAt) ? Optional.empty()
                    : Optional.of(FirePlan.reindex(cursorMs, fireAt));
        }
        if (nowMs - fireAt <= schedule.misfireAfterMs()) {
            return Optional.of(new FirePlan(fireAt, cron.nextAfter(fireAt).orElse(null), Fire.Kind.SCHEDULED, fireAt,
                    1, true, fireAt));
        }
        // Missed: every fire older than misfireAfter, handled as one step.
        long lastMissed = cron.lastAtOrBefore(nowMs - schedule.misfireAfterMs() - 1, cursorMs).orElse(fireAt);
        int missed = count(cron, cursorMs, lastMissed);
        Long due = cron.nextAfter(lastMissed).orElse(null);
        if (schedule.misfire() == Misfire.ONCE) {
            return Optional.of(new FirePlan(lastMissed, due, Fire.Kind.CATCH_UP, lastMissed, missed, true, nowMs));
        }
        return Optional.of(new FirePlan(lastMissed, due, Fire.Kind.SKIPPED, lastMissed, missed, false, 0));
    }

    private static int count(CronSchedule cron, long afterMs, long untilMs) {
        int n = 0;
        long at = afterMs;
        while (n < MAX_COUNTED) {
            Optional<Long> next = cron.nextAfter(at);
            if (next.isEmpty() || next.get() > untilMs) {
                break;
            }
            n++;
            at = next.get();
        }
        return Math.max(n, 1);
    }
}
