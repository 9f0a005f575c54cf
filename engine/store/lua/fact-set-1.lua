--[[
  Latest-wins write of one fact (config value, broker version): keeps the stored value when it is
  newer than the incoming one, so facts arriving out of order never roll a config back. On equal
  times the later write wins, which keeps replaying the same source idempotent.

  KEYS[1]  facts hash of a broker or cluster scope (P facts:{cluster:broker})
  ARGV[1]  field: JSON [name, sorted labels]
  ARGV[2]  at, epoch ms
  ARGV[3]  value: "<at> <member JSON>"

  Returns 1 when written, 0 when a newer fact was kept.
]]
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local space = string.find(current, ' ', 1, true)
  local currentAt = tonumber(string.sub(current, 1, space - 1))
  if currentAt > tonumber(ARGV[2]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
