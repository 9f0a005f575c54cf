--[[
  What changed in a scope's series since a caller read them (the alert loop's reuse of the last
  tick's reads, engine/series-cache.ts): for each signal key, a range the caller already holds is
  checked by its count and first member, and a range it does not hold is read. One call per scope
  instead of one ZRANGEBYSCORE per key, and the held range costs no reply.

  KEYS[i]      signal sorted sets of one scope (P sig:{cluster:broker}:<name>); the key count is
               the script's first argument, so every key of a call shares one hash tag
  ARGV[4i-3]   start of the range to check, epoch ms inclusive; '' to check nothing for KEYS[i]
  ARGV[4i-2]   end of the range to check, inclusive
  ARGV[4i-1]   start of the range to read, inclusive
  ARGV[4i]     end of the range to read, inclusive (a start after the end reads nothing)

  Returns one entry per key: { count in the checked range (-1 when none), its first member or '',
  { members of the read range in score order } }.
]]
local out = {}
for i, key in ipairs(KEYS) do
  local a = (i - 1) * 4
  local from, to = ARGV[a + 1], ARGV[a + 2]
  if from == '' then
    out[i] = { -1, '', redis.call('ZRANGEBYSCORE', key, ARGV[a + 3], ARGV[a + 4]) }
  else
    local count = redis.call('ZCOUNT', key, from, to)
    local first = ''
    if count > 0 then first = redis.call('ZRANGEBYSCORE', key, from, to, 'LIMIT', 0, 1)[1] end
    out[i] = { count, first, redis.call('ZRANGEBYSCORE', key, ARGV[a + 3], ARGV[a + 4]) }
  end
end
return out
