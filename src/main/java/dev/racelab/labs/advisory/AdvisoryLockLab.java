package dev.racelab.labs.advisory;

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
 * PostgreSQL advisory locks behind a connection pool, after the source article on Postgres
 * advisory locks: workers each do "with the lock on invoice K, do the work" (the article's {@code
 * withLock}) through a HikariCP pool, as an application would. The key of the lock comes from the
 * invoice's name ({@link LockKeys}).
 *
 * <p>A session-level advisory lock belongs to the session (the connection) that took it. With a
 * pool, the article's first version takes the lock on whichever connection is free and sends the
 * unlock on whichever is free then: when that is another connection, the unlock returns false
 * (PostgreSQL warns that this session holds no such lock) and the lock stays with a connection
 * that went back to the pool and that no worker owns. Every later try on another connection is
 * refused ("still locked"), and a blocking lock waits for ever. Worse, a worker whose lock lands
 * on the very connection that holds the lock gets it too: a session may take its own lock again
 * (re-entrancy), so two workers are inside at once.
 *
 * <p>HikariCP lends a thread the connection it gave back last when that one is free, so a worker
 * alone gets its lock's connection back for its unlock, and refused workers keep trying on the
 * connection they tried last. The unlock goes astray when others keep the pool busy, so that a
 * worker finds its connection taken: the defaults have eight workers share two connections, a
 * refused worker tries again every few milliseconds, and the work under the lock takes {@link
 * #WORK_MS} in the database on a pooled connection, as work usually does. (With six, on a fast
 * machine, a run now and then had every unlock land home: one in ten, on a quiet moment.)
 */
public final class AdvisoryLockLab extends ProfiledLab<AdvisoryStrategy> {

    static final String WORKER = "worker";

    static final Gate BEFORE_LOCK = new Gate("before-lock",
            "the worker is about to ask for the lock on its invoice (time between its requests)");
    static final Gate AFTER_LOCK = new Gate("after-lock",
            "the worker has the lock, as far as it knows, and has not started the work");
    static final Gate DIES_HOLDING = Gate.fault("worker-dies-holding",
            "a worker with a rule here dies just after taking the lock: its connection goes back to the pool "
                    + "without an unlock (session-pooled: it went back already)");
    static final Gate BEFORE_UNLOCK = new Gate("before-unlock",
            "the work is done; the worker is about to unlock (before each unlock, when it locked many times; "
                    + "xact-lock: about to commit)");

    static final Switch<Acquire> ACQUIRE = Switch.choice("acquire", "Acquire",
            "try: pg_try_advisory_lock, which answers at once (a worker refused tries again until its patience "
                    + "runs out); blocking: pg_advisory_lock, which waits in PostgreSQL", Acquire.TRY);
    static final Switch<Integer> PATIENCE_MS = Switch.integer("patience-ms", "Patience",
            "try: how long a refused worker keeps trying (every few ms) before its request fails, \"still "
                    + "locked\"; 0: at once, as the article's withLock", "ms", 500, 0, 60_000);
    static final Switch<Integer> POOL_SIZE = Switch.integer("pool-size", "Pool size",
            "connections in the HikariCP pool every worker borrows from", "", 2, 1, 32);
    static final Switch<Integer> WORK_MS = Switch.integer("work-ms", "Work",
            "how long the work under the lock takes, in the database, on a pooled connection", "ms", 20, 0, 10_000);
    static final Switch<Reentrancy> REENTRANCY = Switch.choice("reentrancy", "Re-entrancy",
            "how many times each worker takes its lock and unlocks it: a session lock taken three times needs three "
                    + "unlocks, and a fourth returns false (transaction locks: taken so often, released by the commit)",
            Reentrancy.ONCE);
    static final Switch<LockKeys> KEYS = Switch.choice("keys", "Key",
            "how an invoice's name becomes the lock's key: the article's 32-bit hash, the two-key form "
                    + "(kind, number), or a 64-bit hash", LockKeys.HASH32);
    static final Switch<LockKeys.Resources> RESOURCES = Switch.choice("resources", "Invoices",
            "one invoice for everyone, or two invoices (odd and even workers) whose names have the same 32-bit hash",
            LockKeys.Resources.ONE);

    /** What the key figure of a batch counts: the locks nobody unlocked. */
    static final KeyFigure LEFT_BEHIND = new KeyFigure("locksLeftBehind", "locks left behind");

    private final Backends backends;

    public AdvisoryLockLab(Backends backends) {
        super(AdvisoryStrategy.class, new LabProfile("advisory-lock", "Advisory locks and a pool",
                "Workers lock an invoice with a PostgreSQL advisory lock through a pool; an unlock lands on another "
                        + "connection.",
                Set.of(Service.POSTGRES), List.of(AdvisoryStrategy.values()),
                List.of(BEFORE_LOCK, AFTER_LOCK, DIES_HOLDING, BEFORE_UNLOCK),
                new LabProfile.Crew(WORKER, 8, 1, 64), 3,
                List.of(ACQUIRE, PATIENCE_MS, POOL_SIZE, WORK_MS, REENTRANCY, KEYS, RESOURCES)));
        this.backends = backends;
    }

    /** Each worker asks at moments of its own, as requests come in; so the pool stays busy and unlocks go astray. */
    @Override
    public GatePlan presetGates() {
        return GatePlan.NONE.with(BEFORE_LOCK.id(), GateRule.range(0, 20))
                .with(BEFORE_UNLOCK.id(), GateRule.range(0, 20));
    }

    @Override
    public KeyFigure keyFigure() {
        return LEFT_BEHIND;
    }

    @Override
    protected Scenario open(AdvisoryStrategy strategy, RunSetup setup) throws Exception {
        return new AdvisoryScenario(backends.postgres(), strategy, setup);
    }

    @Override
    protected LabView view(AdvisoryStrategy strategy, RunHeader header) {
        return new AdvisoryView(strategy, header);
    }

    /** How a worker asks for the lock. */
    enum Acquire implements Switch.Choice {
        TRY("try", "Try"),
        BLOCKING("blocking", "Wait");

        private final String id;
        private final String title;

        Acquire(String id, String title) {
            this.id = id;
            this.title = title;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String title() {
            return title;
        }
    }

    /** How many times a worker takes its lock, and how many times it unlocks it. */
    enum Reentrancy implements Switch.Choice {
        ONCE("once", "1 lock, 1 unlock", 1, 1),
        THREE("three", "3 locks, 3 unlocks", 3, 3),
        ONE_TOO_MANY("one-too-many", "3 locks, 4 unlocks", 3, 4);

        private final String id;
        private final String title;
        private final int locks;
        private final int unlocks;

        Reentrancy(String id, String title, int locks, int unlocks) {
            this.id = id;
            this.title = title;
            this.locks = locks;
            this.unlocks = unlocks;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String title() {
            return title;
        }

        /** Lock calls per request. */
        int locks() {
            return locks;
        }

        /** Unlocks per request (session locks only: a transaction's are released by its end). */
        int unlocks() {
            return unlocks;
        }
    }
}
