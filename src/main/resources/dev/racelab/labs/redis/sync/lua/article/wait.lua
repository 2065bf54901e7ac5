-- The article's condition wait: the caller's channel joins the condition's queue, always.
-- The caller holds the monitor's mutex while this runs and releases it afterwards, so no signal
-- can slip in between checking the condition and joining the queue.
-- KEYS[1] the condition's wait queue. ARGV[1] the caller's wake-up channel.
redis.call('lpush', KEYS[1], ARGV[1])
return 0
