package dev.racelab.labs.redisfailover;

import dev.racelab.backend.PgSessions;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.RedisAddress;
import dev.racelab.backend.SentinelTopology;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.PgFixture;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of the redis-failover lab: RaceLab's Redis with Sentinels, made whole first (a server a
 * run killed is back as a replica, and Sentinel would fail over again), and the shared PostgreSQL
 * for the record and the tokens of {@code pg-fence}.
 *
 * <p>A fault a client suffers (the primary killed or frozen) starts the failover watch: it waits
 * for the Sentinels to name the other server, notes how long that took, lets the replication
 * stream through again, and brings a killed server back as a replica of the new primary.
 *
 * <p>The oracle ({@link Holdings}): a token handed out twice, or a write accepted from a client
 * whose lock someone was granted after it (a stale write), is a race; so are two holders at once
 * where nothing fences the writes ({@code lock-only}, {@code wait-replica}).
 */
final class RedisFailoverScenario implements Scenario {

    static final String STALE = "stale writes accepted";
    static final String DUPLICATE = "duplicate tokens";
    static final SqlFile SQL = SqlFile.load(RedisFailoverScenario.class, "redis-failover.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("redis-failover", 1, SQL);
    private static final Duration HEAL_WITHIN = Duration.ofSeconds(60);
    private static final Duration FAILOVER_WITHIN = Duration.ofSeconds(20);

    private final RedisFailoverStrategy strategy;
    private final RunSetup setup;
    private final SentinelTopology topology;
    private final PgFixture pg;
    private final Holdings holdings = new Holdings();
    private volatile Thread watch;
    private volatile long failoverMillis = -1;
    private volatile String failedFrom;
    private volatile String failedTo;
    private volatile String noFailoverWords;
    private volatile String restoreFailed;
    private volatile Thread thaw;

    RedisFailoverScenario(Postgres postgres, SentinelTopology topology, RedisFailoverStrategy strategy,
                          RunSetup setup) throws Exception {
        this.strategy = strategy;
        this.setup = setup;
        this.topology = topology;
        topology.heal(HEAL_WITHIN, setup.stopping());
        this.pg = new PgFixture(postgres, setup, TABLES, PgSessions.Mode.dedicated());
    }

    String runId() {
        return setup.runId();
    }

    String lockKey() {
        return "racelab:" + setup.runId() + ":failover:lock";
    }

    String fenceKey() {
        return "racelab:" + setup.runId() + ":failover:fence";
    }

    int leaseMillis() {
        return setup.get(RedisFailoverLab.LEASE_MS);
    }

    Holdings holdings() {
        return holdings;
    }

    void holdReplication(WorkerContext context) {
        topology.holdReplication();
        context.mark(EventKind.FAULT, "the relays hold the replica's stream", 0);
    }

    /** Kills server {@code primary} (SIGKILL) and starts the failover watch. */
    void kill(int primary, WorkerContext context) {
        String server = topology.serverNames().get(primary);
        topology.kill(primary);
        context.mark(EventKind.FAULT, server + " killed", 0);
        watch(primary);
    }

    /**
     * Freezes server {@code primary} for pause-ms (SIGSTOP, then SIGCONT, on a timer of its own:
     * the pause lasts what it says, failover or not) and starts the failover watch.
     */
    void pause(int primary, WorkerContext context) {
        String server = topology.serverNames().get(primary);
        int pauseMs = setup.get(RedisFailoverLab.PAUSE_MS);
        topology.freeze(primary, true);
        context.mark(EventKind.FAULT, server + " frozen for " + pauseMs + " ms", pauseMs);
        thaw = setup.threads().start("thaw-" + server, () -> {
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                topology.freeze(primary, false);
            }
        });
        watch(primary);
    }

    /**
     * After a fault: waits for the Sentinels to name another primary (at most {@link
     * #FAILOVER_WITHIN}: a primary that comes back in time keeps its place, which is an outcome, not
     * a failure), lets the stream through, and brings a killed server back as a replica.
     */
    private void watch(int from) {
        long fault = System.nanoTime();
        watch = setup.threads().start("failover-watch", () -> {
            try {
                int to = topology.awaitPrimaryOtherThan(from, FAILOVER_WITHIN, setup.stopping());
                failoverMillis = (System.nanoTime() - fault) / 1_000_000;
                failedFrom = topology.serverNames().get(from);
                failedTo = topology.serverNames().get(to);
            } catch (IOException noFailover) {
                noFailoverWords = "The Sentinels named no other primary within " + FAILOVER_WITHIN.toSeconds()
                        + " s of the fault. ";
            }
            try {
                topology.releaseReplication();
                topology.restore(FAILOVER_WITHIN, setup.stopping());
            } catch (IOException e) {
                restoreFailed = e.getMessage();
            }
        });
    }

    @Override
    public LabWorker worker(WorkerContext context) throws Exception {
        return new FailoverClient(this, context, pg.session(context), topology, strategy);
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(new TopologyObserver(topology, lockKey()));
    }

    @Override
    public Outcome judge(RunSummary summary) throws Exception {
        awaitWatch();
        String holder;
        long token;
        long writes;
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("read-record"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                holder = rs.getString(1);
                token = rs.getLong(2);
                writes = rs.getLong(3);
            }
        }
        List<String> two = holdings.twoHolders();
        List<String> duplicates = holdings.duplicates();
        List<String> staleAccepted = holdings.staleAccepted();
        List<String> staleRejected = holdings.staleRejected();
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("twoHolders", two.size());
        metrics.put("duplicateTokens", duplicates.size());
        metrics.put("staleWritesAccepted", staleAccepted.size());
        metrics.put("staleWritesRejected", staleRejected.size());
        metrics.put("writes", writes);
        metrics.put("recordToken", token);
        metrics.put("failoverMs", failoverMillis);
        if (restoreFailed != null) {
            throw new IllegalStateException("the killed server did not come back as a replica: " + restoreFailed);
        }
        String failover = failoverMillis < 0 ? (noFailoverWords != null ? noFailoverWords : "")
                : "Sentinel promoted " + failedTo + " " + String.format("%.1f", failoverMillis / 1000.0)
                        + " s after " + failedFrom + " failed. ";
        String record = "The record was last written by " + (holder.isEmpty() ? "nobody" : holder)
                + (token > 0 ? " with token " + token : "") + ".";
        Map<String, Long> violations = new LinkedHashMap<>();
        if (!duplicates.isEmpty()) {
            violations.put(DUPLICATE, (long) duplicates.size());
            return new Outcome(Verdict.RACE, "duplicate token: " + duplicates.get(0),
                    failover + "The token counter lived in Redis and went back with the failover, so the fence cannot "
                            + "tell the two holders apart: whichever writes second is rejected, the rightful holder "
                            + "too. " + record, violations, metrics, List.of());
        }
        boolean unfenced = strategy == RedisFailoverStrategy.LOCK_ONLY || strategy == RedisFailoverStrategy.WAIT_REPLICA;
        if (!staleAccepted.isEmpty() || (unfenced && !two.isEmpty())) {
            if (!staleAccepted.isEmpty()) {
                violations.put(STALE, (long) staleAccepted.size());
            }
            return new Outcome(Verdict.RACE, two.isEmpty() ? "a stale write was accepted"
                    : "two holders: " + two.get(0),
                    failover + "The lock never reached the replica Sentinel promoted, so a second client was granted it "
                            + "while the first still believed it held it. " + (staleAccepted.isEmpty() ? ""
                            : staleAccepted.get(0) + " was accepted. ") + record,
                    violations, metrics, List.of());
        }
        String oneAtATime = failoverMillis < 0 ? "No client held the lock while another did."
                : "No client held the lock while another did: the failover came after the lock was let go (so "
                        + "this run shows no race; a slower write, or a quicker failover, would).";
        String why = switch (strategy) {
            case PG_FENCE -> two.isEmpty() ? oneAtATime
                    : "Two clients held the lock (" + two.get(0) + "), but PostgreSQL's token fenced the writes: "
                            + (staleRejected.isEmpty() ? "no stale write was made."
                            : staleRejected.size() + " stale write" + (staleRejected.size() == 1 ? " was" : "s were")
                                    + " rejected (" + staleRejected.get(0) + ").");
            case WAIT_REPLICA -> "No client used a lock its replica had not acknowledged. WAIT makes a lost lock less "
                    + "likely, not impossible: it is not consensus.";
            default -> oneAtATime;
        };
        return new Outcome(Verdict.SAFE, two.isEmpty() ? "one holder at a time"
                : "every stale write rejected", failover + why + " " + record, violations, metrics, List.of());
    }

    /** Waits for the failover watch and the thaw, at most as long as they may take. */
    private void awaitWatch() throws InterruptedException {
        for (Thread running : new Thread[] {thaw, watch}) {
            if (running != null) {
                running.join(FAILOVER_WITHIN.toMillis() * 2 + setup.get(RedisFailoverLab.PAUSE_MS));
            }
        }
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg);
    }

    @Override
    public void close() throws Exception {
        try {
            awaitWatch();
            topology.releaseReplication();
            int primary = topology.primary();
            if (primary >= 0) {
                RedisAddress at = topology.address(primary);
                try (Jedis jedis = new Jedis(at.host(), at.port(), 2_000)) {
                    jedis.del(lockKey(), fenceKey());
                } catch (JedisException e) {
                    // The keys expire.
                }
            }
        } finally {
            pg.close();
        }
    }
}
