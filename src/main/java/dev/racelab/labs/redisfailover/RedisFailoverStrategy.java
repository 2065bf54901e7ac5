package dev.racelab.labs.redisfailover;

import dev.racelab.engine.Strategy;

/** How a client uses a Redis lock that a failover can lose, to guard a PostgreSQL record. */
enum RedisFailoverStrategy implements Strategy {
    LOCK_ONLY(About.broken("lock-only", "The lock alone",
            "SET NX on the primary, then write: a failover to a replica that never got the lock lets a second "
                    + "client take it, and both write")),
    REDIS_TOKEN(About.broken("redis-token", "A token from Redis",
            "the lock hands out a fencing token from a Redis counter, and the write is fenced by it: the counter "
                    + "goes back with the failover, so two clients get the same token")),
    WAIT_REPLICA(About.fix("wait-replica", "WAIT for the replica",
            "after SET NX, WAIT 1 on the same connection: a lock the replica did not acknowledge is given back, "
                    + "not used. It makes a lost lock less likely, not impossible: WAIT is not consensus (another "
                    + "replica may be promoted, an acknowledged write can still be lost), and it guards nothing "
                    + "against a client that pauses past its lease")),
    PG_FENCE(About.fix("pg-fence", "A token from PostgreSQL",
            "the fencing token comes from PostgreSQL, which the failover does not touch, and the write is fenced by "
                    + "it: two clients may hold the lock, but the older token's write is rejected"));

    private final About about;

    RedisFailoverStrategy(About about) {
        this.about = about;
    }

    @Override
    public About about() {
        return about;
    }
}
