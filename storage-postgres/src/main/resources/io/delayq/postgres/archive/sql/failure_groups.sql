-- failure_groups: the live dead letters matching the filter, grouped by failure signature (V5's columns, written with
-- each letter): the :limit largest groups (ties: the newest death first, then the signature id), each with how many
-- died in [:hourAgoMs, :nowMs], its first and last death, and its newest letter as the example, which also carries the
-- signature's kind, message and host. One statement, so the example is read in the same snapshot as the counts.
-- The GROUP BY reads the matching letters through the filter's index (delayq_dead_letters_signature when nothing
-- narrows them); each example is the first entry of delayq_dead_letters_signature's range for its group.
-- Letters not signed yet (written by an older version, see V5) are in no group.
-- Binds: those of DeadLetterFilter's conditions (without a cursor), :hourAgoMs, :nowMs, :limit.
WITH groups AS (
    SELECT signature_id,
           count(*) AS n,
           count(*) FILTER (WHERE dead_at >= delayq_ts(:hourAgoMs) AND dead_at <= delayq_ts(:nowMs)) AS last_hour,
           min(dead_at) AS first_dead_at,
           max(dead_at) AS last_dead_at
    FROM delayq_dead_letters
    WHERE purged_at IS NULL AND signature_id IS NOT NULL <filter>
    GROUP BY signature_id
    ORDER BY n DESC, last_dead_at DESC, signature_id
    LIMIT :limit
)
SELECT g.signature_id, g.n AS count, g.last_hour, delayq_ms(g.first_dead_at) AS first_dead_at_ms,
       delayq_ms(g.last_dead_at) AS last_dead_at_ms,
       e.key, delayq_ms(e.dead_at) AS dead_at_ms, e.replay_count, e.replays::text AS replays, e.job::text AS job,
       e.payload, e.signature_kind, e.signature_message, e.signature_host, e.notice_state, e.notice_attempts,
       delayq_ms(e.notice_next_attempt_at) AS notice_next_attempt_at_ms,
       delayq_ms(e.notice_delivered_at) AS notice_delivered_at_ms, e.notice_last_error, e.notice_last_status
FROM groups g
CROSS JOIN LATERAL (SELECT key, dead_at, replay_count, replays, job, payload, signature_kind, signature_message,
                           signature_host, notice_state, notice_attempts, notice_next_attempt_at,
                           notice_delivered_at, notice_last_error, notice_last_status
                    FROM delayq_dead_letters
                    WHERE purged_at IS NULL AND signature_id = g.signature_id <filter>
                    ORDER BY dead_at DESC, key DESC
                    LIMIT 1) e
ORDER BY g.n DESC, g.last_dead_at DESC, g.signature_id
