-- breaker_count: how many origins have a circuit (at most delivery.breaker.maxOrigins and a few).
-- Returns one row: the count.
SELECT count(*) FROM delayq_circuits
