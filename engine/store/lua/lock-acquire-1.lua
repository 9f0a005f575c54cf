--[[
  Takes or renews a lease lock (one replica posts the digest). The holder may renew; anyone else
  waits until the lease expires or is released.

  KEYS[1]  lock key (P lock:<name>)
  ARGV[1]  owner id
  ARGV[2]  lease, ms

  Returns 1 when the owner holds the lock now, 0 otherwise.
]]
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
