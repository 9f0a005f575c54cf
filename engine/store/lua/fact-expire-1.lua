--[[
  Retention of facts: deletes the given fields of a facts hash whose stored `at` is older than the
  cut, re-checked here so a fact rewritten since the caller read it is kept. The caller passes the
  fields of one HSCAN page, so the work per call is bounded whatever the size of the hash.

  KEYS[1]  facts hash of a scope (P facts:{cluster:broker}): field -> "<at> <member>"
  ARGV[1]  cut, epoch ms: facts strictly older go
  ARGV[2…] fields to check

  Returns the number of fields deleted.
]]
local cut = tonumber(ARGV[1])
local removed = 0
for i = 2, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v then
    local at = tonumber(string.match(v, '^(%-?[%d%.e+]+) '))
    if at ~= nil and at < cut then
      redis.call('HDEL', KEYS[1], ARGV[i])
      removed = removed + 1
    end
  end
end
return removed
