-- The runs whose deadline has passed: their RaceLab was killed, or has not renewed for a lifetime.
-- ARGV[1] the most run ids to return
return redis.call('zrangebyscore', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[1]))
