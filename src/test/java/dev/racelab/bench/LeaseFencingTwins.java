package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;
import dev.racelab.backend.SqlFile;
import dev.racelab.labs.leasefencing.LeaseFencingLab;
import dev.racelab.labs.redis.sync.LeaseLock;
import dev.racelab.labs.redis.sync.LuaScript;
import dev.racelab.support.TestServers;
import redis.clients.jedis.Jedis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The lease-fencing lab's raw twins: each client takes the lease lock in Redis (the lab's acquire
 * script by {@code EVALSHA}: {@code SET NX PX} and {@code INCR} for the fencing token), asks again
 * when the holder's lease would run out or every 10 ms, (checks with {@code GET} that it still
 * holds it), writes the record in PostgreSQL on a session of its own, autocommit, and releases
 * the lock (compare-and-delete, the lab's script). The lab's lease (100 ms), no keeper.
 */
final class LeaseFencingTwins {

    private static final SqlFile SQL = SqlFile.load(LeaseFencingLab.class, "lease-fencing.sql");
    private static final LuaScript ACQUIRE = LuaScript.load(LeaseLock.class, "lua/lease/acquire.lua");
    private static final LuaScript RELEASE = LuaScript.load(LeaseLock.class, "lua/lease/release.lua");
    private static final String LEASE_MS = "100";
    private static final long RECHECK_MILLIS = 10;
    private static final long PATIENCE_MILLIS = TimeUnit.MINUTES.toMillis(10);
    private static final int COMMAND_TIMEOUT_MILLIS = 10_000;
    private static final String REDIS = "Redis: EVALSHA acquire (again while taken), ";
    private static final String RELEASED = "EVALSHA release";

    private LeaseFencingTwins() {
    }

    private enum Write { BLIND, CHECK_OWNER, FENCED }

    static Map<String, RawTwin> all() {
        Map<String, String> switches = Map.of("lease-ms", LEASE_MS, "keeper", "false");
        return Map.of(
                "lease-fencing/lease-only", new RawTwin(REDIS + RELEASED + "; PostgreSQL: UPDATE value, token "
                        + "RETURNING, autocommit", switches, rounds(Write.BLIND)),
                "lease-fencing/lease-check-owner", new RawTwin(REDIS + "GET lock, " + RELEASED + "; PostgreSQL: "
                        + "UPDATE value, token RETURNING, autocommit", switches, rounds(Write.CHECK_OWNER)),
                "lease-fencing/fenced", new RawTwin(REDIS + RELEASED + "; PostgreSQL: UPDATE … WHERE token <= ? "
                        + "RETURNING (and UPDATE rejected_writes when refused), autocommit", switches,
                        rounds(Write.FENCED)));
    }

    private static RawTwin.Rounds rounds(Write write) {
        return (postgres, run, workers, ops) -> new Record(postgres, run, write);
    }

    /** One round: the run's record in PostgreSQL, its lock and token counter in Redis. */
    private static final class Record extends RawTwin.Seeded {

        private final Write write;
        private final Redis redis = TestServers.redis();
        private final List<String> keys;

        Record(Postgres postgres, String run, Write write) throws SQLException {
            super(postgres, run, SQL);
            this.write = write;
            String lock = Redis.KEY_PREFIX + run + ":lock";
            this.keys = List.of(lock, lock + ":token");
        }

        @Override
        public RawTwin.Worker worker(int index) throws SQLException {
            Connection c = connect(index, Connection.TRANSACTION_NONE);
            Jedis jedis;
            try {
                jedis = redis.open(run + ":raw-" + (index + 1), COMMAND_TIMEOUT_MILLIS);
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
            String owner = run + "/client-" + (index + 1);
            return new RawTwin.Worker() {
                @Override
                public void operation(int n) throws Exception {
                    long token = acquire(jedis, owner);
                    try {
                        if (write != Write.CHECK_OWNER || owner.equals(jedis.get(keys.get(0)))) {
                            write(c, (index + 1) * 100L + n + 1, token);
                        }
                    } finally {
                        RELEASE.runForLong(jedis, keys.subList(0, 1), List.of(owner));
                    }
                }

                @Override
                public void close() throws SQLException {
                    try (c) {
                        jedis.close();
                    }
                }
            };
        }

        /** Takes the lock, asking again when the holder's lease would run out (or sooner): its fencing token. */
        private long acquire(Jedis jedis, String owner) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MILLIS);
            while (true) {
                List<Long> answer = ACQUIRE.runForLongs(jedis, keys, List.of(owner, LEASE_MS));
                if (answer.get(0) > 0) {
                    return answer.get(0);
                }
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new IllegalStateException(owner + " never got the lock");
                }
                Thread.sleep(Math.max(1, Math.min(Math.min(answer.get(1), RECHECK_MILLIS), left)));
            }
        }

        private void write(Connection c, long value, long token) throws SQLException {
            boolean fenced = write == Write.FENCED;
            if (RowTwins.write(c, SQL.get(fenced ? "write-if-newer" : "write"), value, token, run, fenced)) {
                return;
            }
            try (PreparedStatement ps = c.prepareStatement(SQL.get("count-rejection"))) {
                ps.setString(1, run);
                ps.executeUpdate();
            }
        }

        @Override
        public void close() throws SQLException {
            try (Jedis admin = redis.open(run + ":raw-setup", COMMAND_TIMEOUT_MILLIS)) {
                admin.del(keys.toArray(new String[0]));
            } finally {
                super.close();
            }
        }
    }
}
