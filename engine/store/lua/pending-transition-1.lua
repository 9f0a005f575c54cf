--[[
  Compare-and-set of a pending configuration change: writes the new record only if the stored state
  is still the one the caller read. Two clicks on the same change (Confirm twice, Confirm and
  Cancel, two replicas) race here and exactly one wins, so a change is applied at most once.

  KEYS[1]  pending hash (P pending:{pending}:<id>)
  ARGV[1]  expected state, or "" when the change must not exist yet
  ARGV[2]  new state
  ARGV[3]  new record, JSON
  ARGV[4]  time to keep the record, ms

  Returns 1 when written, 0 when the stored state differed.
]]
local current = redis.call('HGET', KEYS[1], 'state')
if ARGV[1] == '' then
  if current then return 0 end
elseif current ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'record', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
