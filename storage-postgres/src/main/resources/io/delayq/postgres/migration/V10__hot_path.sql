-- V10: what the hot statements (enqueue, reserve, ack) cost per job. storage-postgres/README.md, "Plans that stay
-- linear" and "Cost per job", says what each change is worth.
--
-- delayq_ms, rewritten so that PostgreSQL inlines it. V1's body, floor(extract(epoch FROM t) * 1000), calls
-- extract(epoch FROM timestamptz), which is only STABLE (other fields of a timestamptz depend on the time zone), and
-- an IMMUTABLE SQL function whose body is less than immutable is never inlined: each call went through the
-- SQL-function executor (parse, plan, executor start: ~5 µs), once per row where a statement converts a column.
-- (t - epoch) is an interval, and extract(epoch FROM interval) is IMMUTABLE, so this body inlines into a few numeric
-- operations. Same results as V1's for every timestamptz up to year 294,000 (beyond it, t - epoch is out of an
-- interval's range: an error instead of a number, and no statement of delayq reads such a time).

CREATE OR REPLACE FUNCTION delayq_ms(t timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT floor(extract(epoch FROM (t - timestamptz 'epoch')) * 1000)::bigint $$;
