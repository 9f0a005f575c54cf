--[[
  Retention of alerts: deletes one alert if it is resolved and was resolved before the cut, and drops
  its fingerprint from both indexes in the same step, so an alert that fires again meanwhile (its
  state no longer "resolved") is never deleted. A fingerprint whose hash is gone is unindexed; an
  open alert missing from the open index (written before that index existed) is put back in it, so
  the alert loop sees it again after the first sweep.

  KEYS[1]  alert hash             (P alert:{alerts}:<fingerprint>)
  KEYS[2]  alerts index set       (P alerts:{alerts})
  KEYS[3]  open alerts index set  (P alerts-open:{alerts})
  ARGV[1]  cut, epoch ms: resolved strictly before it goes
  ARGV[2]  fingerprint

  Returns 1 when the alert was deleted, 0 when it stays.
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  redis.call('SREM', KEYS[2], ARGV[2])
  redis.call('SREM', KEYS[3], ARGV[2])
  return 0
end
if state ~= 'resolved' then
  redis.call('SADD', KEYS[3], ARGV[2])
  return 0
end
local resolvedAt = tonumber(redis.call('HGET', KEYS[1], 'resolvedAt'))
if resolvedAt == nil or resolvedAt >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[2])
return 1
