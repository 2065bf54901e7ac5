-- Hardened acquire (P), and a waiter's re-check: safe to run any number of times.
-- Returns {1, reclaimed} when the caller holds a permit (its lease renewed), {0, reclaimed}
-- when it waits in the queue, joining it if it was not there (a grant it never took up may
-- have expired and been handed on). reclaimed counts leases taken back on the way.
local now = now_ms()
local lease = tonumber(ARGV[2])
local reclaimed = reclaim(now, lease)
if take(now, lease) then
    return {1, reclaimed}
end
if not redis.call('lpos', KEYS[2], ARGV[1]) then
    redis.call('rpush', KEYS[2], ARGV[1])
end
return {0, reclaimed}
