--[[
  Retention of a broker that has gone quiet: once trimming has left its scope without any event,
  sample or fact (facts age out first, fact-expire-1.lua), the scope is empty and the caller
  unlists it. Checked in one step, so an append racing with it either finds data in place or writes
  new data afterwards. O(1): it used to read every fact of the scope.

  KEYS[1]  names set of the scope (P names:{cluster:broker})
  KEYS[2]  facts hash of the same scope (P facts:{cluster:broker})

  Returns 1 when the scope is now empty (the caller unlists the broker), 0 when it keeps data.
]]
if redis.call('SCARD', KEYS[1]) > 0 then return 0 end
if redis.call('HLEN', KEYS[2]) > 0 then return 0 end
return 1
