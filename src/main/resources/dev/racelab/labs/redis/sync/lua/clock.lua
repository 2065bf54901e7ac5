-- Shared by every script that reads the server's clock: the loader puts this in front of it.

-- Scripts that read the clock must replicate their effects, not their text (the default since
-- Redis 5; older servers need asking).
if redis.replicate_commands then
    redis.replicate_commands()
end

local function now_ms()
    local t = redis.call('time')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
