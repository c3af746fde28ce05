-- now: the database's clock, epoch ms: the clock every statement schedules by.
SELECT delayq_ms(delayq_now())
