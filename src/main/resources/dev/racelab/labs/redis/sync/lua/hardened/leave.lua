-- A waiter stops waiting: it leaves the queue, and a permit granted to it meanwhile (its wake-up
-- may be on the way) is handed on, not lost. Returns 1 when it passed a permit on, else 0.
redis.call('lrem', KEYS[2], 0, ARGV[1])
if redis.call('zrem', KEYS[3], ARGV[1]) == 1 then
    hand_over(now_ms(), tonumber(ARGV[2]))
    return 1
end
return 0
