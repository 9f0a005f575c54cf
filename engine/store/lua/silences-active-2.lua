--[[
  Lists the silences still active at a time and forgets the expired ones in the same step, so a
  silence re-added with a later expiry is never deleted by a concurrent cleanup.

  KEYS[1]  silences hash (P silences:{silences}): id -> Silence JSON
  KEYS[2]  expiry sorted set (P silence-expiry:{silences}): id scored by expiresAt
  ARGV[1]  now, epoch ms; a silence is active while now < expiresAt

  Returns the active silences' JSON, ordered by expiresAt then id.
]]
-- At most 1,000 expired silences are forgotten per call (the rest on the next): unpack has a limit,
-- and the work stays bounded however many expired at once.
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 1000)
if #expired > 0 then
  redis.call('HDEL', KEYS[1], unpack(expired))
  redis.call('ZREM', KEYS[2], unpack(expired))
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf')
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[1], unpack(ids))
