-- quarantine_size: how many entries the quarantine holds. Exact, like outbox_size: it holds only what could not be
-- read.
SELECT count(*) FROM delayq_quarantine
