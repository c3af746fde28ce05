-- find: the most recent archived record of a job id: its newest live dead letter or its newest completed record,
-- whichever finished later (the dead letter when both finished in the same millisecond). Two index lookups
-- (delayq_dead_letters_job, delayq_completed_jobs_job).
-- Binds: :topic, :id.
SELECT job, payload
FROM ((SELECT dead_at AS at, true AS dead, job::text AS job, payload
       FROM delayq_dead_letters
       WHERE topic = :topic AND id = :id AND purged_at IS NULL
       ORDER BY dead_at DESC, key DESC
       LIMIT 1)
      UNION ALL
      (SELECT finished_at, false, job::text, payload
       FROM delayq_completed_jobs
       WHERE topic = :topic AND id = :id
       ORDER BY finished_at DESC
       LIMIT 1)) AS found
ORDER BY at DESC, dead DESC
LIMIT 1
