-- Hardened signal: wakes the oldest waiter that can still hear it, skipping waiters whose
-- connection is gone. KEYS[1] the condition's queue. ARGV[1] the wake-up channel prefix,
-- ARGV[2] the message. Returns 1 when someone was woken, 0 when nobody waited.
local waiter = redis.call('lpop', KEYS[1])
while waiter do
    if redis.call('publish', ARGV[1] .. waiter, ARGV[2]) > 0 then
        return 1
    end
    waiter = redis.call('lpop', KEYS[1])
end
return 0
