-- enqueue_copy: the COPY of an enqueue by COPY (CopyEnqueue, between enqueue_copy_open and enqueue_copy_close): rows
-- straight into delayq_jobs in PostgreSQL's binary COPY format, the columns enqueue.sql writes, in this order (the
-- order CopyEnqueue encodes each row's fields in).
-- Binds: none; the rows follow on the connection's COPY stream.
COPY delayq_jobs (topic, id, state, push, run_at, max_attempts, created_at, fingerprint, timeout_ms, broadcast,
                  callback, backoff, payload, traceparent, tracestate, on_dead, expires_at)
FROM STDIN (FORMAT binary)
