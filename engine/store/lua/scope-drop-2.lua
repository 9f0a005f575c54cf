--[[
  Retention of a broker that has gone quiet: once trimming has left its scope without any event or
  sample, its facts are deleted too, unless one of them is newer than the cut (a broker that still
  reports a fact is not gone). Checked and deleted in one step, so an append racing with it either
  finds the facts in place or writes new ones afterwards.

  KEYS[1]  names set of the scope (P names:{cluster:broker})
  KEYS[2]  facts hash of the same scope (P facts:{cluster:broker}): field -> "<at> <member>"
  ARGV[1]  cut, epoch ms

  Returns 1 when the scope is now empty (the caller unlists the broker), 0 when it keeps data.
]]
if redis.call('SCARD', KEYS[1]) > 0 then return 0 end
local cut = tonumber(ARGV[1])
for _, v in ipairs(redis.call('HVALS', KEYS[2])) do
  local at = tonumber(string.match(v, '^(%-?[%d%.e+]+) '))
  if at == nil or at >= cut then return 0 end
end
redis.call('DEL', KEYS[2])
return 1
