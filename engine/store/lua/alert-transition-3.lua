--[[
  Compare-and-set of an alert's lifecycle state: writes the new record only if the stored state is
  still the one the caller saw. Two engine processes evaluating the same rule race here; exactly one
  wins, so the team gets one firing, not two. The open index holds pending and firing alerts only, so
  the alert loop reads those each tick and never the resolved ones kept for their grace period.

  KEYS[1]  alert hash             (P alert:{alerts}:<fingerprint>)
  KEYS[2]  alerts index set       (P alerts:{alerts})
  KEYS[3]  open alerts index set  (P alerts-open:{alerts})
  ARGV[1]  expected state: "pending" | "firing" | "resolved", or "" when the alert must not exist yet
  ARGV[2]  fingerprint (member of the indexes)
  ARGV[3…] field, value, field, value, … of the new record ("state" raw, other fields JSON)

  Returns 1 when written, 0 when the stored state differed.
]]
local current = redis.call('HGET', KEYS[1], 'state')
if ARGV[1] == '' then
  if current then return 0 end
elseif current ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('SADD', KEYS[2], ARGV[2])
if redis.call('HGET', KEYS[1], 'state') == 'resolved' then
  redis.call('SREM', KEYS[3], ARGV[2])
else
  redis.call('SADD', KEYS[3], ARGV[2])
end
return 1
