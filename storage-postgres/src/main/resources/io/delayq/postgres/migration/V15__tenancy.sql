-- V15: the tenancy (issue 28) in the store: the tenants and API tokens made through the API (TenantRegistry), under
-- one version that every change moves by one, and the token buckets every instance takes permits from
-- (RateLimiters). Only new tables: statements of earlier versions are unaffected during a rolling upgrade.

-- The one version of every tenant and token change: one row (the CHECK), which each change's statement updates only
-- if it still holds the version the caller read (compare-and-set). Changes are made by people, a few a day, so
-- serialising them on one row costs nothing, and two instances can never both accept overlapping topic patterns.
CREATE TABLE delayq_tenancy (
    one     boolean PRIMARY KEY DEFAULT true CHECK (one),
    version bigint  NOT NULL
);
INSERT INTO delayq_tenancy (one, version) VALUES (true, 0);

CREATE TABLE delayq_tenants (
    name       text        PRIMARY KEY,
    tenant     jsonb       NOT NULL, -- the Tenant as JSON (TenancyJson), its signing secrets included: never log it
    updated_at timestamptz NOT NULL  -- the last put, for an operator in psql
);

-- No foreign key to delayq_tenants: a token may act for a tenant declared in config.yml, which is never stored, and
-- deleting a tenant leaves its tokens to the caller.
CREATE TABLE delayq_tokens (
    tenant       text        NOT NULL, -- '' for an operators' token (a tenant's name is never empty)
    name         text        NOT NULL,
    token        jsonb       NOT NULL, -- the ApiToken as JSON: its SHA-256, never the token
    last_used_at timestamptz,          -- raised by token_use.sql (each instance reports once a minute); no version
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant, name)
) WITH (
    -- last_used_at is in no index: with room on the page, the reports' rewrites are HOT updates
    fillfactor = 70
);

-- One row per token bucket in use (RateLimiters): taken from before enqueues and reserves of rate-limited tenants and
-- topics, so on the hot path. UNLOGGED: a take writes no WAL and waits for no flush. The price: after a crash of the
-- server, and on a standby promoted by a failover, the table is empty, and an empty bucket row is a full bucket, so
-- each limit grants its burst once more. A limit is soft state; the jobs are not, and none of them is here.
CREATE UNLOGGED TABLE delayq_rate_buckets (
    key          text             PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 512),
    tokens       double precision NOT NULL, -- permits left after the last take
    at           timestamptz      NOT NULL, -- the last take, by clock_timestamp() (µs)
    last_granted integer          NOT NULL, -- what the last take got: RETURNING sees only the new row
    -- when the bucket is full again, rounded up to a whole minute: the reaper drops the row after it (a missing row is
    -- a full bucket, so nothing changes). Rounded so that a bucket taken from all the time changes this indexed
    -- column once a minute, and its other rewrites are HOT updates (no index entry; pruned without a vacuum)
    forget_at    timestamptz      NOT NULL
) WITH (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_analyze_scale_factor = 0.02
);

-- The reaper's: buckets full again, oldest first; never a scan of every bucket.
CREATE INDEX delayq_rate_buckets_forget ON delayq_rate_buckets (forget_at);
