package io.delayq.postgres;

import java.time.Duration;

/**
 * How a {@link PostgresJobStore} keeps its jobs.
 *
 * @param finishedRetention how long a finished job stays findable (and its id taken) before the reaper drops it
 * @param historySize       attempts kept in a job's history
 * @param reaperInterval    how often the reaper looks for finished jobs past the retention
 * @param reaperBatch       rows the reaper drops per statement (it runs up to 10 statements a pass)
 */
public record PostgresStoreOptions(Duration finishedRetention, int historySize, Duration reaperInterval,
                                   int reaperBatch) {

    public PostgresStoreOptions {
        if (finishedRetention.isNegative() || historySize < 1 || reaperInterval.isNegative() || reaperInterval.isZero()
                || reaperBatch < 1) {
            throw new IllegalArgumentException("invalid PostgreSQL store options: " + finishedRetention + ", "
                    + historySize + ", " + reaperInterval + ", " + reaperBatch);
        }
    }

    /** Finished jobs kept 24 h, 100 attempts of history, a reaper pass every second of up to 10 × 1,000 rows. */
    public static PostgresStoreOptions defaults() {
        return new PostgresStoreOptions(Duration.ofHours(24), 100, Duration.ofSeconds(1), 1_000);
    }

    public PostgresStoreOptions withFinishedRetention(Duration retention) {
        return new PostgresStoreOptions(retention, historySize, reaperInterval, reaperBatch);
    }

    public PostgresStoreOptions withReaperInterval(Duration interval) {
        return new PostgresStoreOptions(finishedRetention, historySize, interval, reaperBatch);
    }

    public PostgresStoreOptions withHistorySize(int size) {
        return new PostgresStoreOptions(finishedRetention, size, reaperInterval, reaperBatch);
    }
}
