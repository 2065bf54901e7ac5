-- The article's signalAll: every waiter is taken off the condition's queue and sent a message.
-- KEYS[1] the condition's wait queue. ARGV[1] the message. Returns 1.
local waiter = redis.call('rpop', KEYS[1])
while waiter do
    redis.call('publish', waiter, ARGV[1])
    waiter = redis.call('rpop', KEYS[1])
end
return 1
