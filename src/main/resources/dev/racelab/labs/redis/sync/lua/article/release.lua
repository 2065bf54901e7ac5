-- The article's mutex release: like V, but with nobody waiting the counter goes back to at most
-- one, so releasing a free mutex twice does not make room for two holders.
-- KEYS[1] the counter, KEYS[2] the wait queue. ARGV[1] the message.
-- Returns the number of subscribers that received the wake-up, or 1 when the mutex was freed.
local waiter = redis.call('rpop', KEYS[2])
if waiter then
    return redis.call('publish', waiter, ARGV[1])
end
if tonumber(redis.call('get', KEYS[1])) < 1 then
    return redis.call('incr', KEYS[1])
end
return 1
