-- Registers a live run, or pushes its deadline ahead.
-- ARGV[1] the run id   ARGV[2] how long from now the run counts as alive, in ms
-- Returns the new deadline.
local deadline = now_ms() + tonumber(ARGV[2])
redis.call('zadd', KEYS[1], deadline, ARGV[1])
return deadline
