--[[
  Patches bookkeeping fields (message ts, notifiedAt, summary…) of an existing alert without a
  read-modify-write race against a concurrent state transition; never creates an alert.

  KEYS[1]  alert hash (P alert:{alerts}:<fingerprint>)
  ARGV[…]  field, value, field, value, … (values JSON; never "state" or "fingerprint")

  Returns 1 when the alert existed and was patched, 0 otherwise.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
