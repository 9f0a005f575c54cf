--[[
  Releases a lease lock only if the caller still holds it, so a replica whose lease lapsed cannot
  release the lock another replica has since taken.

  KEYS[1]  lock key (P lock:<name>)
  ARGV[1]  owner id

  Returns 1 when released, 0 when the lock was not held by this owner.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
