-- The article's V: the oldest waiter is taken off the queue and sent a message on its channel;
-- with nobody waiting, the permit goes back to the counter.
-- KEYS[1] the counter of free permits, KEYS[2] the wait queue. ARGV[1] the message.
-- Returns what PUBLISH returns: how many subscribers received the message. The caller tries
-- again when that is 0 (the waiter's connection is gone). When it is 1 the permit now belongs
-- to whoever listens on that channel, whether or not it will ever act on the message.
local waiter = redis.call('rpop', KEYS[2])
if waiter then
    return redis.call('publish', waiter, ARGV[1])
end
return redis.call('incr', KEYS[1])
