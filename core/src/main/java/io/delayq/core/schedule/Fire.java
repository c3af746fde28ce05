package io.delayq.core.schedule;

/**
 * One fire of a schedule, as its history keeps it.
 *
 * @param fireAtMs   the cron time it stands for (epoch ms); for a run-now, when it was asked for
 * @param jobId      the job it enqueued, or {@code null} when nothing was enqueued (missed fires skipped)
 * @param kind       how it came about
 * @param missed     how many cron times it stands for: 1, or more for a {@code once} catch-up or a skip
 * @param recordedMs when the store recorded it (epoch ms, by the scheduler's reading of the store's clock)
 */
public record Fire(long fireAtMs, String jobId, Kind kind, int missed, long recordedMs) {
    public enum Kind {
        /** A cron time, enqueued on time (within {@code misfireAfter}). */
        SCHEDULED,
        /** Cron times missed (not enqueued within {@code misfireAfter}), enqueued as one job (misfire {@code once}). */
        CATCH_UP,
        /** Cron times missed and dropped (misfire {@code skip}): no job. */
        SKIPPED,
        /** {@code POST …/run}: a job now, the cron times unchanged. */
        RUN_NOW
    }
}
