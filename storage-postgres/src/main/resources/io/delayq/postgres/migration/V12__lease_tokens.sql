-- V12: lease tokens of 128 bits from a CSPRNG (issue 26, finding 8). Until V11 a token was delayq_token(), 53 bits of
-- random(), which is not a CSPRNG: its output can be predicted from outputs seen. Now the service draws every token
-- (LeaseToken, a DRBG SecureRandom per thread) and reserve.sql writes it: lease_token becomes uuid, 16 bytes compared
-- as bytes, any 128 bits (no version bits: the value is not made by a UUID algorithm, only held in the type).
--
-- Leases in flight keep working: their bigint token n becomes the uuid of n zero-extended (high 64 bits 0), which is
-- what LeaseToken.toUuid() makes of the decimal token their holder presents, so an ack, nack or extend with it still
-- matches, and their deadlines are untouched, so they expire as before.
--
-- Not ALTER COLUMN ... TYPE: that rewrites the whole table and its indexes under an exclusive lock (about 1 s per
-- 100,000 jobs measured, so minutes for millions of scheduled jobs), while only leased rows have a token. Instead a
-- new column, filled for the leased rows only, the old one dropped (no rewrite: its bytes stay in old row versions
-- until the row next changes, which every transition does), and the CHECK that
-- ties a token to the leased state added again over the new column (one scan, no rewrite): about 30 ms per 100,000
-- jobs. The new column comes last, so the outbox, filled positionally (INSERT INTO delayq_outbox SELECT j.*), is
-- rebuilt in the new column order as V8 and V9 did: every row under its own seq, the identity continuing after every
-- seq ever handed out.
--
-- The previous version's statements do not work on this schema (they bind and compare bigint tokens, and their reserve
-- calls delayq_token(), dropped here): stop the instances of the previous version before this migration runs (the
-- new version runs it at start-up, or `migrate`). Leases they made are acked, nacked, extended or expired by the new
-- version as above.

ALTER TABLE delayq_jobs RENAME COLUMN lease_token TO lease_token_v11;
ALTER TABLE delayq_jobs DROP CONSTRAINT leased_iff_lease;
ALTER TABLE delayq_jobs ADD COLUMN lease_token uuid; -- 128 bits drawn by the service for this lease alone

UPDATE delayq_jobs
SET lease_token = lpad(to_hex(lease_token_v11), 32, '0')::uuid
WHERE state = 'leased';

ALTER TABLE delayq_jobs DROP COLUMN lease_token_v11;
ALTER TABLE delayq_jobs ADD CONSTRAINT leased_iff_lease
    CHECK ((state = 'leased') = (lease_token IS NOT NULL AND lease_deadline IS NOT NULL));

DROP FUNCTION delayq_token();

CREATE TEMPORARY TABLE delayq_outbox_v11_next AS
SELECT greatest((SELECT max(seq) FROM delayq_outbox),
                pg_sequence_last_value(pg_get_serial_sequence('delayq_outbox', 'seq')),
                (SELECT max((entry ->> 'seq')::bigint) FROM delayq_quarantine WHERE origin = 'outbox'),
                0) + 1 AS next_seq;

CREATE TEMPORARY TABLE delayq_outbox_v11 AS SELECT * FROM delayq_outbox;
DROP TABLE delayq_outbox;

CREATE TABLE delayq_outbox (
    LIKE delayq_jobs INCLUDING DEFAULTS,
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY
);

-- by name: an outbox row is a finished job, its lease_token NULL, which stays NULL in the new type
INSERT INTO delayq_outbox OVERRIDING SYSTEM VALUE
SELECT r.* FROM delayq_outbox_v11 o, jsonb_populate_record(NULL::delayq_outbox, to_jsonb(o) - 'lease_token') r
ORDER BY o.seq;

SELECT setval(pg_get_serial_sequence('delayq_outbox', 'seq'), (SELECT next_seq FROM delayq_outbox_v11_next), false);

DROP TABLE delayq_outbox_v11;
DROP TABLE delayq_outbox_v11_next;
