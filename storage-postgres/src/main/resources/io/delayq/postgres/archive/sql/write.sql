-- write: archives finished jobs, idempotently, in one statement (mirrors MongoJobArchive.write).
-- Binds (arrays, one element per job; keys distinct and sorted, so that concurrent archivers lock rows in one order):
--   dead letters:        :deadKeys, :deadTopics, :deadIds, :deadAtMs (epoch ms, null = now), :deadJobs (the Job's
--                        JSON without its payload), :deadPayloads, and what the dashboard queries, computed in Java
--                        (V5): :deadSignatureIds, :deadKinds, :deadMessages, :deadHosts (FailureSignature.of(job)),
--                        :deadStatuses (the last attempt's HTTP status, null for none); :deadNoticed (V11: the job has
--                        an onDead target, so the letter gets a pending notice due at its death)
--   other finished jobs: :doneKeys, :doneTopics, :doneIds, :doneStates, :doneAtMs, :doneJobs, :donePayloads, kept
--                        :completedRetentionMs after they finished
-- A dead letter's job columns are the outbox's to decide (writing an entry again rewrites them); its replays are the
-- archive's own and are set only on insert, so a rewrite never wipes a replay; so is its notice (V11), so a rewrite
-- never makes a notice sent, or being sent, pending again. The tombstone of a purged letter is left as it is
-- (ON CONFLICT ... WHERE purged_at IS NULL): the purge stands and the entry counts as written. Against a concurrent
-- purge this holds in either order: ON CONFLICT locks the row and evaluates the WHERE on its latest version, and the
-- purge's UPDATE does the same.
-- Commits durably even where synchronous_commit is off: the archiver deletes the entries from the store's outbox once
-- this returns.
-- Returns how many rows were written (tombstones left alone are not counted).
WITH durable AS MATERIALIZED (
    SELECT CASE WHEN current_setting('synchronous_commit') = 'off'
                THEN set_config('synchronous_commit', 'on', true) END AS v
),
dead AS (
    INSERT INTO delayq_dead_letters AS d (key, topic, id, dead_at, replay_count, replays, job, payload, payload_doc,
                                          signature_id, signature_kind, signature_message, signature_host, http_status,
                                          notice_state, notice_attempts, notice_next_attempt_at)
    SELECT i.key, i.topic, i.id, i.dead_at, 0, '[]', i.job::jsonb, i.payload, delayq_payload_doc(i.payload),
           i.signature_id, i.kind, i.message, i.host, i.status,
           CASE WHEN i.noticed THEN 'PENDING' END, CASE WHEN i.noticed THEN 0 END,
           CASE WHEN i.noticed THEN i.dead_at END
    FROM (SELECT u.*, coalesce(delayq_ts(u.dead_at_ms), delayq_now()) AS dead_at
          FROM unnest(:deadKeys::text[], :deadTopics::text[], :deadIds::text[], :deadAtMs::bigint[],
                      :deadJobs::text[], :deadPayloads::text[], :deadSignatureIds::text[], :deadKinds::text[],
                      :deadMessages::text[], :deadHosts::text[], :deadStatuses::integer[], :deadNoticed::boolean[])
               AS u(key, topic, id, dead_at_ms, job, payload, signature_id, kind, message, host, status, noticed)) AS i
    ON CONFLICT (key) DO UPDATE
        SET topic = excluded.topic, id = excluded.id, dead_at = excluded.dead_at, job = excluded.job,
            payload = excluded.payload, payload_doc = excluded.payload_doc, signature_id = excluded.signature_id,
            signature_kind = excluded.signature_kind, signature_message = excluded.signature_message,
            signature_host = excluded.signature_host, http_status = excluded.http_status
        WHERE d.purged_at IS NULL
    RETURNING 1
),
done AS (
    INSERT INTO delayq_completed_jobs AS c (key, topic, id, state, finished_at, expire_at, job, payload)
    SELECT i.key, i.topic, i.id, i.state, i.finished_at,
           i.finished_at + :completedRetentionMs * interval '1 millisecond', i.job::jsonb, i.payload
    FROM (SELECT u.*, coalesce(delayq_ts(u.done_at_ms), delayq_now()) AS finished_at
          FROM unnest(:doneKeys::text[], :doneTopics::text[], :doneIds::text[], :doneStates::text[],
                      :doneAtMs::bigint[], :doneJobs::text[], :donePayloads::text[])
               AS u(key, topic, id, state, done_at_ms, job, payload)) AS i
    ON CONFLICT (key) DO UPDATE
        SET topic = excluded.topic, id = excluded.id, state = excluded.state, finished_at = excluded.finished_at,
            expire_at = excluded.expire_at, job = excluded.job, payload = excluded.payload
    RETURNING 1
)
-- durable is selected so that it runs: an unreferenced SELECT in WITH is never executed
SELECT ((SELECT count(*) FROM dead) + (SELECT count(*) FROM done))::integer AS written
FROM durable
