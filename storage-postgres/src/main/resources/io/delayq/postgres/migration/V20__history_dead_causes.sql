-- V20: the per-topic, per-minute history counts dead letters by cause as well (TopicMinute.expired, .noRetry): of the
-- minute's dead, those not delivered by their expiry (EXPIRED) and those ended by a "don't retry" answer (NO_RETRY).
-- Two columns with a default: no table rewrite, and add_history.sql of the earlier version, which does not name them,
-- still works during a rolling upgrade (its minutes count 0 of each).
ALTER TABLE delayq_topic_history
    ADD COLUMN expired  bigint NOT NULL DEFAULT 0,
    ADD COLUMN no_retry bigint NOT NULL DEFAULT 0;
