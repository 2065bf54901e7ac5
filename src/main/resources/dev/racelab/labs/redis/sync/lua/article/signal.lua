-- The article's condition signal: the oldest waiter is taken off the queue and sent a message.
-- A signal to an empty condition is simply lost, as it should be.
-- KEYS[1] the condition's wait queue. ARGV[1] the message.
-- Returns how many subscribers received it, or 1 when nobody waited; the caller tries again on 0.
local waiter = redis.call('rpop', KEYS[1])
if waiter then
    return redis.call('publish', waiter, ARGV[1])
end
return 1
