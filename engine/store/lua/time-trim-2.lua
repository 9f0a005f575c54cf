--[[
  Retention: drops a signal's events older than the cut and, when the sorted set empties, removes
  the name from its scope's index in the same step, so the index never points at data that was
  trimmed while a concurrent append re-adds it.

  KEYS[1]  signal sorted set (P sig:{cluster:broker}:<name>)
  KEYS[2]  names set of the same scope (P names:{cluster:broker})
  ARGV[1]  cut, epoch ms: members scored strictly below it are removed
  ARGV[2]  signal name (member of KEYS[2])

  Returns the number of members removed.
]]
local removed = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[2])
end
return removed
