-- token_use: raises tokens' last use (TenantRegistry.recordUse), never lowers it, and moves no version: instances
-- report uses at most once a minute each, in any order. A token without a record (deleted meanwhile) gets none, so
-- the used HASH never outgrows the tokens.
-- KEYS[1] tokens HASH, KEYS[2] used HASH
-- ARGV[1] a token's field, ARGV[2] its last use (epoch ms), then the same for each further token
-- Returns how many last uses were raised

local raised = 0
for i = 1, #ARGV, 2 do
  local field, at = ARGV[i], tonumber(ARGV[i + 1])
  if redis.call('HEXISTS', KEYS[1], field) == 1 then
    local before = tonumber(redis.call('HGET', KEYS[2], field) or '')
    if not before or at > before then
      redis.call('HSET', KEYS[2], field, ARGV[i + 1])
      raised = raised + 1
    end
  end
end
return raised
