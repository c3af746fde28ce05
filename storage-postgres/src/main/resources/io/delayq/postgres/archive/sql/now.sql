-- now: the database's clock, epoch ms (the health check's question).
SELECT delayq_ms(delayq_now())
