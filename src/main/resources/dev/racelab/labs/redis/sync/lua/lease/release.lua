-- Lease lock, release: compare and delete. Only the holder's own release deletes the lock; a
-- client whose lease ran out (and perhaps went to someone else) deletes nothing.
-- KEYS[1] the lock   ARGV[1] the caller's owner id
-- Returns 1 when the caller held the lock and let it go, 0 when it held nothing.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
