package dev.racelab.labs.redisfailover;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.KeyFigure;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.Switch;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.ProfiledLab;

import java.util.List;
import java.util.Set;

/**
 * A Redis lock lost in a failover: clients take a lock on RaceLab's own Redis primary, watched by
 * three Sentinels, and write a PostgreSQL record while they hold it. The primary dies right after
 * client-1 took the lock, before its replica got it (the relays hold the replication stream);
 * Sentinel promotes the replica, where the lock was never taken, and client-2 takes it too.
 *
 * <p>The seed articles' argument, live: a lock is only as safe as its replication. A fencing token
 * kept in Redis goes back with the failover ({@code redis-token}); {@code WAIT} for the replica
 * refuses a lock that did not reach it ({@code wait-replica}); a token from PostgreSQL fences the
 * stale holder's write whatever Redis lost ({@code pg-fence}).
 *
 * <p>The defaults ({@link #presetGates}): client-2 asks 300 ms after client-1; the stream held from
 * client-1's lock, the primary killed right after it, and client-1 slow to write (4 s), so that
 * its write comes after the failover and client-2's.
 */
public final class RedisFailoverLab extends ProfiledLab<RedisFailoverStrategy> {

    static final Gate BEFORE_LOCK = new Gate("before-lock", "before the client asks the primary for the lock");
    static final Gate REPLICATION_HELD = Gate.fault("replication-held",
            "the relays hold the replica's stream from just before this client's lock until the failover: "
                    + "the replica never gets the lock");
    static final Gate PRIMARY_DIES = Gate.fault("primary-dies",
            "the primary is killed right after this client took the lock (and a Redis token); Sentinel fails over");
    static final Gate PRIMARY_PAUSES = Gate.fault("primary-pauses",
            "the primary freezes for pause-ms right after this client took the lock, as in a long GC pause; "
                    + "Sentinel fails over, and the old primary wakes up still a primary for a while");
    static final Gate BEFORE_WRITE = new Gate("before-write",
            "the client holds the lock (and its token), before it writes the record in PostgreSQL");

    static final Switch<Integer> LEASE_MS = Switch.integer("lease-ms", "Lease",
            "how long the lock lasts unless released (SET … PX)", "ms", 30_000, 1_000, 600_000);
    static final Switch<Integer> PAUSE_MS = Switch.integer("pause-ms", "Primary's pause",
            "how long primary-pauses freezes the primary", "ms", 6_000, 100, 60_000);

    /** client-2 asks for the lock a little after client-1, so that client-1 is the one the failover robs. */
    static final GateRule CLIENT_2_LATER = GateRule.fixed(300);
    /** Long enough for Sentinel to fail over (about 2–3 s) and client-2 to write first. */
    static final GateRule SLOW_WRITE = GateRule.fixed(4_000);

    private final Backends backends;

    public RedisFailoverLab(Backends backends) {
        super(RedisFailoverStrategy.class, new LabProfile("redis-failover", "A lock lost in a failover",
                "Clients take a Redis lock; the primary dies before its replica got it, and Sentinel promotes "
                        + "the replica.",
                Set.of(Service.POSTGRES, Service.REDIS_SENTINEL), List.of(RedisFailoverStrategy.values()),
                List.of(BEFORE_LOCK, REPLICATION_HELD, PRIMARY_DIES, PRIMARY_PAUSES, BEFORE_WRITE),
                new LabProfile.Crew("client", 2, 2, 4), 1, List.of(LEASE_MS, PAUSE_MS)));
        this.backends = backends;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(BEFORE_LOCK.id(), 1, CLIENT_2_LATER)
                .with(REPLICATION_HELD.id(), 0, GateRule.fixed(1))
                .with(PRIMARY_DIES.id(), 0, GateRule.fixed(1))
                .with(BEFORE_WRITE.id(), 0, SLOW_WRITE);
    }

    @Override
    protected Scenario open(RedisFailoverStrategy strategy, RunSetup setup) throws Exception {
        return new RedisFailoverScenario(backends.postgres(), backends.sentinels(), strategy, setup);
    }

    @Override
    protected LabView view(RedisFailoverStrategy strategy, RunHeader header) {
        return new RedisFailoverView(header);
    }

    @Override
    public java.util.Optional<String> unexplorable() {
        return java.util.Optional.of("its race is with a failover, which the Sentinels run on their own time: a schedule orders the clients, not the Sentinels");
    }

    @Override
    public KeyFigure keyFigure() {
        return new KeyFigure("staleWritesAccepted", "stale writes accepted");
    }
}
