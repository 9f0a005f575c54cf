--[[
  What changed in a scope's series since a caller read them (the alert loop's reuse of the last
  tick's reads, engine/series-cache.ts): for each signal key, a range the caller already holds is
  checked by its count and first member, and the first page of a range it does not hold is read.
  One call per scope instead of one ZRANGEBYSCORE per key, and the held range costs no reply.
  A page is at most ARGV[4n+1] members, so the call's work is bounded by the page and the key count
  whatever a sender wrote into the window; the rest of a full page is read with series-page-1.

  KEYS[i]      signal sorted sets of one scope (P sig:{cluster:broker}:<name>); the key count is
               the script's first argument, so every key of a call shares one hash tag
  ARGV[4i-3]   start of the range to check, epoch ms inclusive; '' to check nothing for KEYS[i]
  ARGV[4i-2]   end of the range to check, inclusive
  ARGV[4i-1]   start of the range to read, inclusive
  ARGV[4i]     end of the range to read, inclusive (a start after the end reads nothing)
  ARGV[4n+1]   most members read per key (the page)

  Returns one entry per key: { count in the checked range (-1 when none), its first member or '',
  { members of the read range in score order, at most a page } }.
]]
local page = tonumber(ARGV[#KEYS * 4 + 1])
local out = {}
for i, key in ipairs(KEYS) do
  local a = (i - 1) * 4
  local from, to = ARGV[a + 1], ARGV[a + 2]
  local members = redis.call('ZRANGEBYSCORE', key, ARGV[a + 3], ARGV[a + 4], 'LIMIT', 0, page)
  if from == '' then
    out[i] = { -1, '', members }
  else
    -- ZCOUNT and a LIMIT 0 1 read are O(log N): the checked range costs nothing per member.
    local count = redis.call('ZCOUNT', key, from, to)
    local first = ''
    if count > 0 then first = redis.call('ZRANGEBYSCORE', key, from, to, 'LIMIT', 0, 1)[1] end
    out[i] = { count, first, members }
  end
end
return out
