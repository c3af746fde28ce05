-- enqueue_copy_open: the first statement of an enqueue by COPY (CopyEnqueue, in one transaction with the COPY and
-- enqueue_copy_close): the database's clock, read once for the whole batch as enqueue.sql reads it once per
-- statement, and each lane's earliest scheduled run time before the COPY, which decides the wake-ups as
-- enqueue.sql's "before" does.
-- Binds (arrays, one element per distinct topic and lane of the batch): :topics, :push.
-- Returns one row per lane: now_ms (the same in every row), topic, push, first_ms (null when nothing is scheduled).
WITH now AS MATERIALIZED (SELECT delayq_ms(delayq_now()) AS ms)
SELECT now.ms AS now_ms, l.topic, l.push,
       delayq_ms((SELECT min(j.run_at) FROM delayq_jobs j
                  WHERE j.topic = l.topic AND j.push = l.push AND j.state = 'scheduled')) AS first_ms
FROM now, unnest(:topics::text[], :push::boolean[]) AS l(topic, push)
