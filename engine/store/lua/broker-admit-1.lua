--[[
  Caps the brokers a cluster may have in the store: a broker already listed is admitted; a new one
  is added only while its cluster has fewer than the cap. Checked and added in one step, so replicas
  appending at once cannot together pass the cap. A flood of invented broker ids (a misparsed log,
  a hostile JSONL file) then costs at most `cap` scopes per cluster.

  One call per cluster, its count read with SCARD: the work is linear in the brokers given, which
  the store bounds per append (StoreCaps.newBrokersPerAppend). It used to count every member of the
  store-wide broker set once per new cluster: 4,000 new clusters were one 19.8 s script.

  KEYS[1]  the cluster's broker set (P cluster-brokers:{cluster:_}): broker ids
  ARGV[1]  cap: most brokers one cluster may have
  ARGV[2…] broker ids of that cluster not yet known to be admitted

  Returns one 1 (admitted) or 0 (refused) per broker id, in order.
]]
local cap = tonumber(ARGV[1])
local n = redis.call('SCARD', KEYS[1])
local out = {}
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    out[#out + 1] = 1
  elseif n < cap then
    redis.call('SADD', KEYS[1], ARGV[i])
    n = n + 1
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
