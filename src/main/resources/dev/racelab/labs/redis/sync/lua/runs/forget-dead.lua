-- Deletes keys of a dead run, checking in the same step that it is dead, so a run that renewed
-- meanwhile keeps every key. Given no keys, removes the dead run's entry from the registry.
-- KEYS[2..n] keys of the run (the caller found them under racelab:<run>:)
-- ARGV[1] the run id
-- Returns the number of keys deleted, or -1 if the run is alive after all.
local deadline = redis.call('zscore', KEYS[1], ARGV[1])
if deadline and tonumber(deadline) > now_ms() then
    return -1
end
if #KEYS == 1 then
    redis.call('zrem', KEYS[1], ARGV[1])
    return 0
end
return redis.call('unlink', unpack(KEYS, 2))
