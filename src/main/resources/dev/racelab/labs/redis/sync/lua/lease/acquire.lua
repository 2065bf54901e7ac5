-- Lease lock, acquire: the lock is free when its key is absent (never taken, released, or its
-- lease ran out, which Redis expires by itself).
-- KEYS[1] the lock: its holder's owner id, expiring with the lease
-- KEYS[2] the fencing token counter: one more for every lease ever granted
-- ARGV[1] the caller's owner id   ARGV[2] the lease in ms
-- Returns {token, 0} when the caller now holds the lock (token: its new fencing token, handed
-- out in the same script, so no two leases ever share one and a later lease always has a higher
-- one); {0, ms} when someone else holds it, ms being what is left of their lease.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return {redis.call('incr', KEYS[2]), 0}
end
return {0, redis.call('pttl', KEYS[1])}
