-- Hardened try-acquire: takes a permit if one is free, else returns at once without queueing.
-- Returns {1, reclaimed} or {0, reclaimed}, like acquire.
local now = now_ms()
local lease = tonumber(ARGV[2])
local reclaimed = reclaim(now, lease)
return {take(now, lease) and 1 or 0, reclaimed}
