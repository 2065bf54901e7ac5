-- Hardened signalAll: wakes every waiter. KEYS[1] the condition's queue. ARGV[1] the wake-up
-- channel prefix, ARGV[2] the message. Returns how many heard it.
local woken = 0
local waiter = redis.call('lpop', KEYS[1])
while waiter do
    woken = woken + redis.call('publish', ARGV[1] .. waiter, ARGV[2])
    waiter = redis.call('lpop', KEYS[1])
end
return woken
