-- V21: which callback origins each topic's jobs were sent to (CircuitBreakers.recordOrigins; the Redis store keeps a
-- ZSET per topic), so that a tenant's token lists the circuits of the origins its jobs' own callback URLs use, not
-- only those of its topics' settings. Only a new table: the statements of the previous version keep working during
-- a rolling upgrade (its instances record no origins, and its topic_delete.sql leaves a deleted topic's rows, which
-- the topic's next write trims and the read leaves out once they are older than the retention).
CREATE TABLE delayq_topic_origins (
    topic     text        NOT NULL,
    origin    text        NOT NULL, -- scheme://host:port (Origins.of)
    last_used timestamptz NOT NULL, -- the latest use recorded by any instance, never lowered
    PRIMARY KEY (topic, origin)     -- at most CircuitBreakers.MAX_ORIGINS_PER_TOPIC (and a few) rows per topic
);
