-- list_jobs: one page of a topic's jobs (JobStore#listJobs; mirrors list_jobs.lua); writes nothing.
-- A job's position is its run time while scheduled, its lease deadline while leased, its finish time once finished;
-- the listing is in (position, id COLLATE "C") order, strictly after (:afterMs, :afterId). Each branch walks one
-- index from there, at most :cap entries: the due index (topic, push, run_at) per lane, the lease index
-- (topic, lease_deadline), or V18's (topic, finished_at, id). The due and lease indexes hold no id, so jobs of the
-- cursor's very millisecond are read again and sorted (incremental sort) on each page; the finished index holds it.
-- The first :cap of the merged walk are "examined": matched against the states, the id prefix and the payload
-- (a containment, PayloadContainment's rule, on the examined rows only: never a scan of the topic), up to the
-- :limit-th match. Only the matches carry their row out: each branch reads the whole row (j AS job) as it walks,
-- rather than a join back to delayq_jobs at the end, whose plan depended on the table's statistics: with stale ones
-- (a topic grown by 10,000 jobs since the last ANALYZE) PostgreSQL chose a nested loop comparing every examined row
-- with every row of the topic, 2.5 s a page instead of 15 ms (ListingWithStaleStatisticsTest).
-- Binds: :topic, :pending (the pending listing, else the finished one), :scheduled, :leased, :states (text[] of
-- state names), :afterMs, :afterId, :toMs (exclusive), :cap, :limit, :prefix (or null), :payloadText and
-- :payloadLiteral (jsonb text, or null).
-- Returns, in walk order, each examined row up to the :limit-th match: n (1-based), walked (rows walked in all),
-- pos_ms, listed_id, hit, and the job's columns when hit (else nulls).
WITH walked AS (
    (SELECT delayq_ms(run_at) AS pos_ms, id, state, payload, j AS job FROM delayq_jobs j
     WHERE :pending AND :scheduled AND topic = :topic AND push AND state = 'scheduled'
       AND run_at >= delayq_ts(:afterMs) AND (run_at, id COLLATE "C") > (delayq_ts(:afterMs), :afterId)
       AND run_at < delayq_ts(:toMs)
     ORDER BY run_at, id COLLATE "C" LIMIT :cap)
    UNION ALL
    (SELECT delayq_ms(run_at) AS pos_ms, id, state, payload, j AS job FROM delayq_jobs j
     WHERE :pending AND :scheduled AND topic = :topic AND NOT push AND state = 'scheduled'
       AND run_at >= delayq_ts(:afterMs) AND (run_at, id COLLATE "C") > (delayq_ts(:afterMs), :afterId)
       AND run_at < delayq_ts(:toMs)
     ORDER BY run_at, id COLLATE "C" LIMIT :cap)
    UNION ALL
    (SELECT delayq_ms(lease_deadline) AS pos_ms, id, state, payload, j AS job FROM delayq_jobs j
     WHERE :pending AND :leased AND topic = :topic AND state = 'leased'
       AND lease_deadline >= delayq_ts(:afterMs)
       AND (lease_deadline, id COLLATE "C") > (delayq_ts(:afterMs), :afterId)
       AND lease_deadline < delayq_ts(:toMs)
     ORDER BY lease_deadline, id COLLATE "C" LIMIT :cap)
    UNION ALL
    (SELECT delayq_ms(finished_at) AS pos_ms, id, state, payload, j AS job FROM delayq_jobs j
     WHERE NOT :pending AND topic = :topic AND finished_at IS NOT NULL
       AND (finished_at, id COLLATE "C") > (delayq_ts(:afterMs), :afterId)
       AND finished_at < delayq_ts(:toMs)
     ORDER BY finished_at, id COLLATE "C" LIMIT :cap)
),
examined AS (
    SELECT w.pos_ms, w.id, w.job,
           row_number() OVER (ORDER BY w.pos_ms, w.id COLLATE "C") AS n,
           count(*) OVER () AS walked,
           coalesce(w.state::text = ANY(CAST(:states AS text[]))
               AND (CAST(:prefix AS text) IS NULL OR left(w.id, length(:prefix)) = :prefix)
               AND (CAST(:payloadText AS jsonb) IS NULL
                    OR CAST(w.payload AS jsonb) @> CAST(:payloadText AS jsonb)
                    OR coalesce(CAST(w.payload AS jsonb) @> CAST(:payloadLiteral AS jsonb), false)), false) AS hit
    FROM (SELECT * FROM walked ORDER BY pos_ms, id COLLATE "C" LIMIT :cap) w
),
counted AS (
    SELECT e.*, count(*) FILTER (WHERE e.hit) OVER (ORDER BY e.n) AS hits FROM examined e
)
SELECT c.n, c.walked, c.pos_ms, c.id AS listed_id, c.hit, (CASE WHEN c.hit THEN c.job END).*
FROM counted c
WHERE c.hits < :limit OR (c.hits = :limit AND c.hit)
ORDER BY c.n
