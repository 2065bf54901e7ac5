-- Shared by the hardened semaphore's scripts: the loader puts this in front of each of them.
--
-- KEYS[1] the counter of free permits
-- KEYS[2] the wait queue: owner ids, oldest at the left
-- KEYS[3] the holders: a sorted set of owner ids scored by the end of their lease (ms, server time)
-- ARGV[1] the caller's owner id   ARGV[2] the lease in ms
-- ARGV[3] the prefix of every wake-up channel (the channel is prefix .. owner id)
-- ARGV[4] the wake-up message
--
-- Invariants: free + #holders = permits; the queue is not empty only while free is 0.
-- A permit is handed over by writing the new holder into KEYS[3] *before* telling it: the
-- wake-up is only a hint to look, so a wake-up nobody reads loses nothing.

-- now_ms() comes from ../clock.lua, which the loader puts in front of this.

-- Gives a permit to the oldest waiter that can still hear about it, or back to the counter.
-- A waiter whose wake-up reaches no subscriber has no connection left: it is skipped at once.
local function hand_over(now, lease)
    while true do
        local waiter = redis.call('lpop', KEYS[2])
        if not waiter then
            redis.call('incr', KEYS[1])
            return false
        end
        redis.call('zadd', KEYS[3], now + lease, waiter)
        if redis.call('publish', ARGV[3] .. waiter, ARGV[4]) > 0 then
            return waiter
        end
        redis.call('zrem', KEYS[3], waiter)
    end
end

-- Takes back the permits of holders whose lease ran out (they crashed, or vanished without
-- their lease being renewed) and hands each on. Returns how many were taken back.
local function reclaim(now, lease)
    local expired = redis.call('zrangebyscore', KEYS[3], '-inf', now)
    for _, owner in ipairs(expired) do
        redis.call('zrem', KEYS[3], owner)
        hand_over(now, lease)
    end
    return #expired
end

-- The caller takes the permit it was granted, or a free one, and starts (or renews) its lease.
-- Returns whether it now holds a permit.
local function take(now, lease)
    if redis.call('zscore', KEYS[3], ARGV[1]) then
        redis.call('zadd', KEYS[3], now + lease, ARGV[1])
        return true
    end
    if tonumber(redis.call('get', KEYS[1])) > 0 then
        redis.call('decr', KEYS[1])
        redis.call('zadd', KEYS[3], now + lease, ARGV[1])
        return true
    end
    return false
end
