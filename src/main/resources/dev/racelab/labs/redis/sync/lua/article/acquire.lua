-- The article's P (and its mutex acquire, which is the same script).
-- KEYS[1] the counter of free permits, KEYS[2] the wait queue (a list, newest at the left).
-- ARGV[1] the caller's wake-up channel, which is what the queue holds.
-- A permit is taken when the counter is above zero; otherwise the caller's channel joins the
-- queue and the caller waits for a message on it. Returns the counter before taking, or 0.
local free = tonumber(redis.call('get', KEYS[1]))
if free and free > 0 then
    redis.call('decr', KEYS[1])
    return free
end
redis.call('lpush', KEYS[2], ARGV[1])
return 0
