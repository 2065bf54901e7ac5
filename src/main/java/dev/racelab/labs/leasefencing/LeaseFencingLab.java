package dev.racelab.labs.leasefencing;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
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
 * A lock with a lease is not enough: clients take a lock in Redis ({@code SET lock owner NX PX
 * lease}), then write a record in PostgreSQL while they believe they hold it. A client whose
 * process stops for longer than its lease (a garbage collector stopping the world, a stalled VM)
 * wakes believing it still holds the lock, after Redis has let it go and another client has taken
 * it and written; its write lands on top of the newer one.
 *
 * <p>Asking Redis again just before writing ({@code lease-check-owner}) only moves the race: a
 * pause between the check and the write lets the stale write through all the same. Only storage
 * that checks the lease's fencing token ({@code fenced}) can tell the stale writer from the
 * holder. A lease keeper (switch {@code keeper}) renews leases while their holders' processes
 * run, which saves a client that is merely slow ({@code slow-write}) but not one that is paused:
 * a pause stops the keeper with everything else.
 *
 * <p>The defaults are small enough to follow: two clients, two writes each, a 100 ms lease.
 * The preset gates ({@link #presetGates}) stop client-1 for 300 ms just before each write (three
 * leases), and let client-2 take 200 ms before each of its writes, two thirds of client-1's
 * stop: client-2's first write lands about 100 ms before client-1 wakes, and its second comes
 * about 100 ms after client-1 took the lock again, so in both operations client-2 takes the lock
 * while client-1 is stopped. Only a run that lost both margins to a starved machine would pass
 * without a stale write.
 */
public final class LeaseFencingLab extends ProfiledLab<LeaseFencingStrategy> {

    static final Gate BEFORE_ACQUIRE = new Gate("before-acquire",
            "before the client asks Redis for the lock (time between writes)");
    static final Gate PAUSE_AFTER_ACQUIRE = new Gate("pause-after-acquire",
            "the client has just taken the lock; a delay here stops its whole process, lease keeper and all "
                    + "(a garbage collector stopping the world, a stalled VM)");
    static final Gate PAUSE_BEFORE_WRITE = new Gate("pause-before-write",
            "just before the write to PostgreSQL (lease-check-owner: just after Redis said the lock is still its "
                    + "own); a delay here stops the whole process, as above");
    static final Gate SLOW_WRITE = new Gate("slow-write",
            "just before the write to PostgreSQL, slow but running: the process goes on, so a lease keeper "
                    + "renews the lease meanwhile");

    static final Switch<Integer> LEASE_MS = Switch.integer("lease-ms", "Lease",
            "how long the lock is held after it is taken (or last renewed) before Redis lets it go", "ms",
            100, 50, 60_000);
    static final Switch<Boolean> KEEPER = Switch.flag("keeper", "Lease keeper",
            "renew each holder's lease every third of a lease while its process runs; a paused process "
                    + "renews nothing", false);

    /** Client-1 stops past its lease before every write: the stale writer. */
    static final int STALLING_CLIENT = 0;
    static final GateRule STALL = GateRule.fixed(300);
    /** Client-2 comes back while client-1 is stopped and its lease has run out. */
    static final int OTHER_CLIENT = 1;
    static final GateRule BETWEEN_WRITES = GateRule.fixed(200);

    private final Backends backends;

    public LeaseFencingLab(Backends backends) {
        super(LeaseFencingStrategy.class, new LabProfile("lease-fencing", "Lease lock and fencing",
                "Clients hold a Redis lease lock while they write to PostgreSQL; one pauses past its lease.",
                Set.of(Service.REDIS, Service.POSTGRES), List.of(LeaseFencingStrategy.values()),
                List.of(BEFORE_ACQUIRE, PAUSE_AFTER_ACQUIRE, PAUSE_BEFORE_WRITE, SLOW_WRITE),
                new LabProfile.Crew("client", 2, 1, 32), 2, List.of(LEASE_MS, KEEPER)));
        this.backends = backends;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(PAUSE_BEFORE_WRITE.id(), STALLING_CLIENT, STALL)
                .with(BEFORE_ACQUIRE.id(), OTHER_CLIENT, BETWEEN_WRITES);
    }

    @Override
    protected Scenario open(LeaseFencingStrategy strategy, RunSetup setup) throws Exception {
        return new LeaseFencingScenario(backends, strategy, setup);
    }

    @Override
    protected LabView view(LeaseFencingStrategy strategy, RunHeader header) {
        return new LeaseFencingView(header);
    }
}
