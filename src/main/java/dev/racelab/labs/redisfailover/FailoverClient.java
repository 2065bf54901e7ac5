package dev.racelab.labs.redisfailover;

import dev.racelab.backend.PgSessions;
import dev.racelab.backend.RedisAddress;
import dev.racelab.backend.SentinelTopology;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import static dev.racelab.labs.redisfailover.RedisFailoverScenario.SQL;

/**
 * One client: takes the lock on whichever server the Sentinels name primary (trying again while
 * another holds it or no primary answers), suffers the faults armed for it right after the grant,
 * takes its token, writes the record, and gives the lock back.
 */
final class FailoverClient implements LabWorker {

    /** Sets the lock and, only if it was free, hands out the next token from the Redis counter. */
    private static final String LOCK_WITH_TOKEN = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then "
            + "local t = redis.call('incr', KEYS[2]) redis.call('pexpire', KEYS[2], 3600000) return t end return false";
    private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
            + "return redis.call('del', KEYS[1]) end return 0";
    private static final long TRY_AGAIN_NANOS = 50_000_000;
    private static final long GIVE_UP_NANOS = 30_000_000_000L;
    private static final int WAIT_MILLIS = 500;

    private final RedisFailoverScenario run;
    private final WorkerContext context;
    private final PgSessions.Session session;
    private final SentinelTopology topology;
    private final RedisFailoverStrategy strategy;
    private boolean faultsDone;
    /** The stream is held once per client, as the faults after the grant come once. */
    private boolean heldOnce;

    FailoverClient(RedisFailoverScenario run, WorkerContext context, PgSessions.Session session,
                   SentinelTopology topology, RedisFailoverStrategy strategy) {
        this.run = run;
        this.context = context;
        this.session = session;
        this.topology = topology;
        this.strategy = strategy;
    }

    @Override
    public void operation(int n) throws Exception {
        context.gate(RedisFailoverLab.BEFORE_LOCK);
        if (!heldOnce && context.fault(RedisFailoverLab.REPLICATION_HELD)) {
            heldOnce = true;
            run.holdReplication(context);
        }
        long redisToken = acquire();
        long token = switch (strategy) {
            case PG_FENCE -> pgToken();
            case REDIS_TOKEN -> redisToken;
            default -> 0;
        };
        if (token > 0) {
            context.mark(EventKind.TOKEN, "fencing token", token);
            String before = run.holdings().token(context.name(), token);
            if (before != null) {
                context.violation(RedisFailoverScenario.DUPLICATE, 1);
                context.mark(EventKind.NOTE, "token " + token + " was handed to " + before + " too", token);
            }
        }
        context.state(ActorState.HOLDING, "holds the lock");
        context.gate(RedisFailoverLab.BEFORE_WRITE);
        write(token);
        release();
    }

    /** Takes the lock; returns the Redis token it came with ({@code redis-token}), else 0. */
    private long acquire() throws Exception {
        long deadline = System.nanoTime() + GIVE_UP_NANOS;
        while (true) {
            int primary = topology.primary();
            if (primary >= 0) {
                String server = topology.serverNames().get(primary);
                context.state(ActorState.RUNNING, "asks " + server + " for the lock");
                try (Jedis jedis = connect(primary)) {
                    long got = trySet(jedis);
                    if (got >= 0) {
                        afterGrant(primary);
                        if (strategy == RedisFailoverStrategy.WAIT_REPLICA && !replicated(jedis, server)) {
                            giveUpAt(deadline);
                            context.backOff(TRY_AGAIN_NANOS);
                            continue;
                        }
                        List<String> others = run.holdings().acquired(context.name(), server, got);
                        context.mark(EventKind.LOCK_ACQUIRED, "the lock on " + server, got);
                        for (String other : others) {
                            context.mark(EventKind.TWO_HOLDERS, other + " still believes it holds the lock", 0);
                        }
                        return got;
                    }
                    context.state(ActorState.WAITING, "waits for the lock (" + server + " says it is held)");
                } catch (JedisException e) {
                    context.state(ActorState.WAITING, "waits: " + server + " does not answer");
                }
            } else {
                context.state(ActorState.WAITING, "waits: the Sentinels name no primary");
            }
            giveUpAt(deadline);
            context.backOff(TRY_AGAIN_NANOS);
        }
    }

    private void giveUpAt(long deadline) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(context.name() + " got no lock " + (strategy == RedisFailoverStrategy
                    .WAIT_REPLICA ? "a replica acknowledged " : "") + "within " + GIVE_UP_NANOS / 1_000_000_000L + " s");
        }
    }

    /** SET NX (with a token from Redis for redis-token): the token (0 without one), or -1 if the lock is held. */
    private long trySet(Jedis jedis) {
        if (strategy == RedisFailoverStrategy.REDIS_TOKEN) {
            Object token = jedis.eval(LOCK_WITH_TOKEN, List.of(run.lockKey(), run.fenceKey()),
                    List.of(context.name(), String.valueOf(run.leaseMillis())));
            return token == null ? -1 : (Long) token;
        }
        String ok = jedis.set(run.lockKey(), context.name(), SetParams.setParams().nx().px(run.leaseMillis()));
        return "OK".equals(ok) ? 0 : -1;
    }

    /** The faults armed for this client, once, right after its first grant. */
    private void afterGrant(int primary) throws Exception {
        if (faultsDone) {
            return;
        }
        faultsDone = true;
        if (context.fault(RedisFailoverLab.PRIMARY_DIES)) {
            run.kill(primary, context);
        }
        if (context.fault(RedisFailoverLab.PRIMARY_PAUSES)) {
            run.pause(primary, context);
        }
    }

    /** wait-replica: WAIT 1 on the lock's connection; a lock the replica did not acknowledge is given back. */
    private boolean replicated(Jedis jedis, String server) {
        context.state(ActorState.WAITING, "WAIT for the replica to acknowledge the lock");
        try {
            if (jedis.waitReplicas(1, WAIT_MILLIS) >= 1) {
                return true;
            }
            jedis.eval(RELEASE, List.of(run.lockKey()), List.of(context.name()));
            context.mark(EventKind.LOCK_REFUSED, "the replica did not acknowledge the lock on " + server
                    + " within " + WAIT_MILLIS + " ms: given back", 0);
        } catch (JedisException e) {
            context.mark(EventKind.LOCK_REFUSED, server + " went away before WAIT answered: the lock is not used", 0);
        }
        return false;
    }

    private Jedis connect(int server) {
        RedisAddress at = topology.address(server);
        Jedis jedis = new Jedis(at.host(), at.port(), 2_000);
        try {
            jedis.clientSetname("racelab:" + run.runId() + ":" + context.name());
            return jedis;
        } catch (JedisException e) {
            jedis.close();
            throw e;
        }
    }

    private long pgToken() throws SQLException {
        try (PgSessions.Lease lease = session.borrow();
             PreparedStatement ps = lease.connection().prepareStatement(SQL.get("next-token"))) {
            ps.setString(1, run.runId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void write(long token) throws SQLException {
        boolean fenced = strategy == RedisFailoverStrategy.PG_FENCE || strategy == RedisFailoverStrategy.REDIS_TOKEN;
        context.state(ActorState.CRITICAL, "writes the record");
        try (PgSessions.Lease lease = session.borrow()) {
            Connection c = lease.connection();
            try (PreparedStatement ps = c.prepareStatement(SQL.get(fenced ? "write-fenced" : "write"))) {
                ps.setString(1, run.runId());
                ps.setString(2, context.name());
                ps.setLong(3, token);
                ps.setString(4, run.runId());
                if (fenced) {
                    ps.setLong(5, token);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    boolean accepted = rs.next();
                    String replaced = accepted ? rs.getString(1) : "";
                    boolean stale = run.holdings().stale(context.name());
                    run.holdings().wrote(context.name(), accepted, replaced);
                    if (accepted) {
                        context.mark(EventKind.WRITE_ACCEPTED, "record", token);
                        if (stale) {
                            context.violation(RedisFailoverScenario.STALE, 1);
                        }
                    } else {
                        context.mark(EventKind.WRITE_REJECTED, "record", token);
                    }
                }
            }
        }
    }

    /** Gives the lock back where the Sentinels say the primary is now, if it is still this client's there. */
    private void release() {
        run.holdings().released(context.name());
        context.mark(EventKind.LOCK_RELEASED, "the lock", 0);
        int primary = topology.primary();
        if (primary < 0) {
            return;
        }
        try (Jedis jedis = connect(primary)) {
            jedis.eval(RELEASE, List.of(run.lockKey()), List.of(context.name()));
        } catch (JedisException e) {
            // The lease lets it go.
        }
        context.state(ActorState.RUNNING);
    }

    @Override
    public void abort() {
        session.abort();
    }

    @Override
    public void close() throws SQLException {
        session.close();
    }
}
