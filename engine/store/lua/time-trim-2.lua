--[[
  Retention: drops a signal's events older than the cut, at most ARGV[3] of them per call (the
  oldest first), and, when the sorted set empties, removes the name from its scope's index in the
  same step, so the index never points at data that was trimmed while a concurrent append re-adds
  it. The caller calls again while a call removed its whole allowance: no call does work
  proportional to how much a sender wrote.

  KEYS[1]  signal sorted set (P sig:{cluster:broker}:<name>)
  KEYS[2]  names set of the same scope (P names:{cluster:broker})
  ARGV[1]  cut, epoch ms: members scored strictly below it are removed
  ARGV[2]  signal name (member of KEYS[2])
  ARGV[3]  most members to remove in this call

  Returns the number of members removed.
]]
local old = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1])
local n = math.min(old, tonumber(ARGV[3]))
local removed = 0
if n > 0 then removed = redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - 1) end
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[2])
end
return removed
