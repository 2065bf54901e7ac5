-- The lease keeper's renewal: a holder (or a waiter granted a permit it has not yet noticed)
-- keeps its permit for another lease. Returns 1, or 0 when the caller holds nothing: its lease
-- ran out and was taken back.
if redis.call('zscore', KEYS[3], ARGV[1]) then
    redis.call('zadd', KEYS[3], now_ms() + tonumber(ARGV[2]), ARGV[1])
    return 1
end
return 0
