-- V17: recurring schedules (issue 29; ScheduleStore, PostgresScheduleStore). Only a new table: statements of earlier
-- versions are unaffected during a rolling upgrade.
CREATE TABLE delayq_schedules (
    topic         text     NOT NULL,
    name          text     NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    definition    text     NOT NULL,           -- the schedule as the service wrote it (JSON); never read by SQL
    -- fires up to here (epoch ms) are handled: the compare-and-set of schedule_fire.sql, so each fire happens once
    cursor_ms     bigint   NOT NULL,
    due_at_ms     bigint,                      -- when the next fire is due; null: none (paused, past its endAt)
    created_at_ms bigint   NOT NULL,
    updated_at_ms bigint   NOT NULL,
    fires         text[]   NOT NULL DEFAULT '{}', -- the last 20 fires as JSON, oldest first
    PRIMARY KEY (topic, name)
);

-- The scheduler's read of due schedules, every instance about once a second: a range scan of the due ones only.
CREATE INDEX delayq_schedules_due ON delayq_schedules (due_at_ms) WHERE due_at_ms IS NOT NULL;
