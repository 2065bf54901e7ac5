-- Lease lock, renewal (the lease keeper's): compare and extend. A lease that already ran out
-- stays lost: only the holder's own key gets another lease.
-- KEYS[1] the lock   ARGV[1] the caller's owner id   ARGV[2] the lease in ms
-- Returns 1 when renewed, 0 when the caller no longer holds the lock.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
