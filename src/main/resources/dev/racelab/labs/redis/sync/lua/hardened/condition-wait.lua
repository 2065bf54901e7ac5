-- Hardened condition wait: the caller joins the condition's queue (once). It holds the monitor's
-- mutex while this runs and releases it afterwards, so no signal slips in between.
-- KEYS[1] the condition's queue (owner ids, oldest at the left). ARGV[1] the caller's owner id.
if not redis.call('lpos', KEYS[1], ARGV[1]) then
    redis.call('rpush', KEYS[1], ARGV[1])
end
return 0
