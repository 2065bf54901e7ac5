-- A condition waiter that stops waiting (its wait timed out) leaves the queue, so no later signal
-- is spent on it. KEYS[1] the condition's queue. ARGV[1] the caller's owner id.
return redis.call('lrem', KEYS[1], 0, ARGV[1])
