package dev.racelab.labs.primitives;

import dev.racelab.backend.Backends;
import dev.racelab.engine.KeyFigure;
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
import dev.racelab.labs.support.LockPanelsView;
import dev.racelab.labs.support.ProfiledLab;
import dev.racelab.labs.support.RedisFixture;

import java.util.List;
import java.util.Set;

/**
 * Redis locks and semaphores: workers take a mutex (or one of a semaphore's two permits) kept in
 * Redis around a critical section that increments a Redis counter.
 *
 * <p>The article's constructs work as long as every process behaves. The faults are what it does
 * not survive, and each has a <em>fault gate</em>: set any delay or a breakpoint on one for a
 * worker ({@code --delay holder-crashes=1@client-2}) and that worker suffers the fault there, the
 * first time it passes (after sitting out the delay). Fault gates do nothing for workers without
 * a rule, and step mode alone does not stop at them. The hardened constructs come through every
 * fault: a crashed holder's lease runs out, a waiter that gives up leaves the queue, a wake-up
 * nobody can hear is skipped, a grant nobody takes up expires, a repeated release is refused.
 *
 * <p>Without a fault every construct behaves, so the lab ships one ({@link #presetGates}): the
 * second worker crashes in its first critical section. The article's mutex is then gone for good
 * and the others wait for ever (STUCK); the article's semaphore runs on one permit short (RACE);
 * the hardened ones take the permit back when the crashed holder's lease runs out (SAFE).
 */
public final class PrimitivesLab extends ProfiledLab<PrimitivesStrategy> {

    static final Gate BEFORE_ACQUIRE = new Gate("before-acquire",
            "before the worker asks for the mutex (or a permit)");
    static final Gate WAITER_CRASHES = Gate.fault("waiter-crashes",
            "a worker with a rule here that finds the mutex taken and joins the queue crashes "
                    + "there; its connections close. The article's retry saves its permit.");
    static final Gate WAITER_VANISHES = Gate.fault("waiter-vanishes",
            "a worker with a rule here that joins the queue vanishes there (its host froze): it "
                    + "never acts again, but its connections stay open, so its wake-up counts as received");
    static final Gate WAITER_GIVES_UP = Gate.fault("waiter-gives-up",
            "a worker with a rule here that joins the queue stops waiting, as a client whose "
                    + "timeout fired, and stays away; the article has no way to leave its queue");
    static final Gate IN_CRITICAL_SECTION = new Gate("in-critical-section",
            "holding the mutex, after reading the protected counter and before writing it back");
    static final Gate HOLDER_CRASHES = Gate.fault("holder-crashes",
            "a worker with a rule here crashes inside its critical section, holding the mutex, "
                    + "and never releases it");
    static final Gate BEFORE_RELEASE = new Gate("before-release",
            "done with the critical section, still holding the mutex");
    static final Gate RELEASE_REPEATED = Gate.fault("release-repeated",
            "a worker with a rule here sends its release a second time, as a client does when "
                    + "the reply to the first was lost");

    static final Switch<Integer> LEASE_MS = Switch.integer("lease-ms", "Lease",
            "hardened constructs only: how long a permit stays held without renewal; a crashed holder's "
                    + "permit comes back after this", "ms", 1_000, 100, 60_000);

    /** The preset fault: which worker crashes holding the construct, the first time it holds it. */
    static final int PRESET_CRASHING_WORKER = 1;

    private final Backends backends;

    public PrimitivesLab(Backends backends) {
        super(PrimitivesStrategy.class, new LabProfile("redis-primitives", "Redis mutex and semaphore",
                "Workers share a Redis mutex; crash its holder or waste a wake-up and the article's permit is gone.",
                Set.of(Service.REDIS), List.of(PrimitivesStrategy.values()),
                List.of(BEFORE_ACQUIRE, WAITER_CRASHES, WAITER_VANISHES, WAITER_GIVES_UP, IN_CRITICAL_SECTION,
                HOLDER_CRASHES, BEFORE_RELEASE, RELEASE_REPEATED),
                new LabProfile.Crew("client", 4, 1, RedisFixture.MOST_WORKERS), 20, List.of(LEASE_MS)));
        this.backends = backends;
    }

    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(HOLDER_CRASHES.id(), PRESET_CRASHING_WORKER, GateRule.fixed(1));
    }

    @Override
    protected Scenario open(PrimitivesStrategy strategy, RunSetup setup) throws Exception {
        return new PrimitivesScenario(backends.redis(), strategy, setup);
    }

    /** The mutex's holder and queue; a semaphore has several holders, which the server lane shows. */
    @Override
    protected LabView view(PrimitivesStrategy strategy, RunHeader header) {
        return new LockPanelsView(header, strategy.permits() == 1 ? List.of(strategy.construct()) : List.of(),
                strategy.hardened() ? "Redis: its lease is no longer renewed and runs out"
                        : "Redis records no holder: nobody can take it back");
    }

    @Override
    public KeyFigure keyFigure() {
        return new KeyFigure("lostPermits", "permits lost");
    }
}
