package io.delayq.postgres.archive;

import java.time.Duration;

/**
 * How a {@link PostgresJobArchive} keeps what it archived.
 *
 * @param completedRetention how long a completed (succeeded) job is kept after it finished (decided when it is written)
 * @param tombstoneRetention how long a purged dead letter's tombstone keeps a late write from bringing it back (decided
 *                           when it is purged)
 * @param reaperInterval     how often the reaper drops completed jobs and tombstones past their expiry
 * @param reaperBatch        rows the reaper drops per statement (it runs up to {@link #REAPER_STATEMENTS_PER_PASS} a
 *                           pass for each table)
 */
public record PostgresArchiveOptions(Duration completedRetention, Duration tombstoneRetention, Duration reaperInterval,
                                     int reaperBatch) {
    /** Statements per table and reaper pass: a pass drops at most this many batches, then waits for the next. */
    public static final int REAPER_STATEMENTS_PER_PASS = 100;

    public PostgresArchiveOptions {
        if (completedRetention.isNegative() || tombstoneRetention.isNegative() || reaperInterval.isNegative()
                || reaperInterval.isZero() || reaperBatch < 1) {
            throw new IllegalArgumentException("invalid PostgreSQL archive options: " + completedRetention + ", "
                    + tombstoneRetention + ", " + reaperInterval + ", " + reaperBatch);
        }
    }

    /**
     * Completed jobs kept 7 days and tombstones 30 (as on MongoDB), a reaper pass every 10 seconds of up to
     * 100 × 1,000 rows per table.
     */
    public static PostgresArchiveOptions defaults() {
        return new PostgresArchiveOptions(Duration.ofDays(7), Duration.ofDays(30), Duration.ofSeconds(10), 1_000);
    }

    public PostgresArchiveOptions withCompletedRetention(Duration retention) {
        return new PostgresArchiveOptions(retention, tombstoneRetention, reaperInterval, reaperBatch);
    }

    public PostgresArchiveOptions withTombstoneRetention(Duration retention) {
        return new PostgresArchiveOptions(completedRetention, retention, reaperInterval, reaperBatch);
    }

    public PostgresArchiveOptions withReaperInterval(Duration interval) {
        return new PostgresArchiveOptions(completedRetention, tombstoneRetention, interval, reaperBatch);
    }

    public PostgresArchiveOptions withReaperBatch(int batch) {
        return new PostgresArchiveOptions(completedRetention, tombstoneRetention, reaperInterval, batch);
    }
}
