--[[
  Caps the brokers a cluster may have in the store: a broker already listed is admitted; a new one
  is added only while its cluster has fewer than the cap. Checked and added in one step, so replicas
  appending at once cannot together pass the cap. A flood of invented broker ids (a misparsed log,
  a hostile JSONL file) then costs at most `cap` scopes per cluster.

  KEYS[1]  brokers set (P brokers): JSON [cluster, broker]
  ARGV[1]  cap: most brokers one cluster may have
  ARGV[2…] pairs: the JSON prefix of a cluster's members ('["prod",'), then the broker's member

  Returns one 1 (admitted) or 0 (refused) per pair, in order.
]]
local cap = tonumber(ARGV[1])
local counts = {}
local out = {}
for i = 2, #ARGV, 2 do
  local prefix, member = ARGV[i], ARGV[i + 1]
  if redis.call('SISMEMBER', KEYS[1], member) == 1 then
    out[#out + 1] = 1
  else
    if counts[prefix] == nil then
      local n = 0
      for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
        if string.sub(m, 1, #prefix) == prefix then n = n + 1 end
      end
      counts[prefix] = n
    end
    if counts[prefix] < cap then
      redis.call('SADD', KEYS[1], member)
      counts[prefix] = counts[prefix] + 1
      out[#out + 1] = 1
    else
      out[#out + 1] = 0
    end
  end
end
return out
