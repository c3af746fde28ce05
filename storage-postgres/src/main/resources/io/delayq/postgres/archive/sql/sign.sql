-- sign: writes the failure signature and last HTTP status that unsigned_dead_letters' letters lacked (arrays, one
-- element per letter). Only on letters still live and unsigned: a purge or a rewrite meanwhile wins.
-- Binds: :keys, :signatureIds, :kinds, :messages, :hosts, :statuses.
-- Returns the number of letters signed.
UPDATE delayq_dead_letters d
SET signature_id = i.signature_id, signature_kind = i.kind, signature_message = i.message, signature_host = i.host,
    http_status = i.status
FROM unnest(:keys::text[], :signatureIds::text[], :kinds::text[], :messages::text[], :hosts::text[],
            :statuses::integer[]) AS i(key, signature_id, kind, message, host, status)
WHERE d.key = i.key AND d.purged_at IS NULL AND d.signature_id IS NULL
