-- Hardened release (V): only a holder can release, and only once. Returns 1 when the permit was
-- handed on, -1 when the caller held none (its lease had run out and was taken back, or it
-- released already): then nothing changes.
if redis.call('zrem', KEYS[3], ARGV[1]) == 0 then
    return -1
end
hand_over(now_ms(), tonumber(ARGV[2]))
return 1
