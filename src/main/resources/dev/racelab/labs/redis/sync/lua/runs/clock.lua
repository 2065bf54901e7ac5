-- Shared by the live-runs scripts: the loader puts this in front of each of them.
--
-- KEYS[1] the registry of live runs: a sorted set of run ids scored by each run's deadline
--         (ms, on the server's clock, so RaceLabs on machines whose clocks differ agree)

-- Scripts that read the clock must replicate their effects, not their text (the default since
-- Redis 5; older servers need asking).
if redis.replicate_commands then
    redis.replicate_commands()
end

local function now_ms()
    local t = redis.call('time')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
