-- V6: the archive's operator log (OperatorLog): bulk operations that every service instance shows and may cancel, and
-- the audit log. storage-postgres/README.md says which statement uses which index.
--
-- Times are the service's (a BulkOperation's createdAt/updatedAt, an AuditEntry's at: epoch ms chosen by the instance
-- that writes them), kept at millisecond precision. expire_at is decided when a row is written, as in V3: the last
-- change plus the writer's retention (30 days, or its tombstoneRetention when longer); the archive's reaper drops
-- rows past it.

CREATE TABLE delayq_operations (
    id               text COLLATE "C" PRIMARY KEY, -- a UUID chosen by the instance that starts it
    kind             text        NOT NULL,          -- BulkOperation.Kind name
    filter           text        NOT NULL,          -- the list endpoint's query string
    state            text        NOT NULL,          -- BulkOperation.State name
    total            bigint      NOT NULL,
    done             bigint      NOT NULL,
    failed           bigint      NOT NULL,
    started_by       text        NOT NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,          -- the last progress report
    cancel_requested boolean     NOT NULL,          -- set by a cancel; a report never touches it
    last_error       text,
    expire_at        timestamptz NOT NULL           -- updated_at + retention: moved on by every report
);
-- The list, newest first (ties by id), read from the top: a page is limit index entries.
CREATE INDEX delayq_operations_newest ON delayq_operations (created_at DESC, id DESC);
CREATE INDEX delayq_operations_expire ON delayq_operations (expire_at); -- the reaper's

CREATE TABLE delayq_audit (
    id        text COLLATE "C" PRIMARY KEY, -- a UUID chosen by the writer; the tie-break of the order
    at        timestamptz NOT NULL,
    actor     text        NOT NULL,
    action    text        NOT NULL,
    target    text        NOT NULL,
    count     bigint      NOT NULL,
    detail    text,
    expire_at timestamptz NOT NULL           -- at + retention
);
-- The log, newest first by (at, id), and its next page below the last entry seen: a range of this index.
CREATE INDEX delayq_audit_newest ON delayq_audit (at DESC, id DESC);
CREATE INDEX delayq_audit_expire ON delayq_audit (expire_at); -- the reaper's
