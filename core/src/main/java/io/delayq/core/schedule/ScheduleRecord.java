package io.delayq.core.schedule;

import java.util.List;

/**
 * A schedule as the store keeps it.
 *
 * @param topic       the topic its jobs go to
 * @param name        unique within the topic
 * @param definition  the schedule as the service wrote it (JSON); the store never reads it
 * @param cursorMs    fires up to this time (epoch ms) are handled; the next fire is the first cron time after it. Set
 *                    to the store's clock by a put (a PUT replaces the schedule: its fires start after it), moved by
 *                    each fire, compared by {@link ScheduleStore#advance} so that a fire is handled once
 * @param dueAtMs     when its next fire is due, or {@code null} when none is (paused, or past its {@code endAt})
 * @param createdAtMs the first put (store clock)
 * @param updatedAtMs the last put (store clock)
 * @param fires       its last fires, oldest first, at most {@link ScheduleStore#MAX_FIRES}
 */
public record ScheduleRecord(String topic, String name, String definition, long cursorMs, Long dueAtMs,
                             long createdAtMs, long updatedAtMs, List<Fire> fires) {
    public ScheduleRecord {
        fires = List.copyOf(fires);
    }
}
