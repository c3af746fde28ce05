package io.delayq.service.schedules;

import io.delayq.core.schedule.Fire;

/**
 * What a scheduler does next with a due schedule ({@link FirePlanner}): move its cursor from the one read to
 * {@code newCursorMs} and its due time to {@code dueAtMs}, recording a fire of {@code kind} standing for
 * {@code missed} cron times, with a job due at {@code jobRunAtMs} (or none) whose id is for {@code fireAtMs}.
 *
 * @param kind {@code null} when only the due time is corrected (nothing fires)
 */
record FirePlan(long newCursorMs, Long dueAtMs, Fire.Kind kind, long fireAtMs, int missed, boolean withJob,
                long jobRunAtMs) {

    static FirePlan reindex(long cursorMs, Long dueAtMs) {
        return new FirePlan(cursorMs, dueAtMs, null, 0, 0, false, 0);
    }

    boolean fires() {
        return kind != null;
    }
}
