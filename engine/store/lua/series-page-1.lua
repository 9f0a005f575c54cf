--[[
  The next page of a range read by series-changes-n: the members after the last one the caller
  read, up to the range's end. The member is found by its rank (ZRANK, O(log N)) and the page read
  by rank (ZRANGE, O(log N + page)), so no call walks what was read before it, however many members
  share one score.

  KEYS[1]  a signal sorted set (P sig:{cluster:broker}:<name>)
  ARGV[1]  the last member the caller read
  ARGV[2]  end of the range, epoch ms inclusive
  ARGV[3]  most members to return (the page)

  Returns { 1, { members after ARGV[1] with a score up to ARGV[2], at most a page } }, or { 0, {} }
  when ARGV[1] is no longer in the set (retention removed it): the caller reads the range again.
]]
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
if not rank then return { 0, {} } end
local page = tonumber(ARGV[3])
local last = tonumber(ARGV[2])
local scored = redis.call('ZRANGE', KEYS[1], rank + 1, rank + page, 'WITHSCORES')
local members = {}
for i = 1, #scored, 2 do
  if tonumber(scored[i + 1]) > last then break end
  members[#members + 1] = scored[i]
end
return { 1, members }
