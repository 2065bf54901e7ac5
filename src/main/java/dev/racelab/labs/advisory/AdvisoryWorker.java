package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgSessions;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.Survivors;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One worker of the advisory-lock lab: per operation, one request, "with the lock on my invoice,
 * do the work". The steps every strategy is made of are here: take the lock (trying again until
 * the worker's patience runs out, or waiting in PostgreSQL), hold it and work, unlock, die at the
 * fault gate; each says on the worker's lane what it does, counts it in the {@link LockLedger},
 * and asks the {@link AdvisoryOracle} whether it broke something. The order of the steps, and the
 * connection each runs on, is the strategy's: {@link PooledWorker}, {@link PinnedWorker}, {@link
 * TransactionWorker}.
 *
 * <p><b>What each worker believes.</b> A worker counts the locks it believes it holds (one per
 * lock call the server granted, one less per unlock it sent, none after a commit or when it dies)
 * and tells the run's sessions ({@link PgSessions.Session#believes}), so the lock observer names
 * the believers as holders and a lock nobody believes in as an orphan. Every lock call and unlock
 * is on the worker's lane with the backend pid it ran on, so the lab's view rebuilds PostgreSQL's
 * lock table, session by session, from the record alone.
 *
 * <p>Threads: a worker's fields are its own thread's; what it shares is in the ledger.
 */
abstract class AdvisoryWorker implements LabWorker {

    /**
     * What every worker of one run is given: the strategy and the switches that shape a request,
     * the run's shared ledger and oracle, and the survivors a dead worker outlasts.
     */
    record Setup(AdvisoryStrategy strategy, AdvisoryLockLab.Acquire acquire, int depth, int unlocks, int workMillis,
                 long patienceNanos, int ops, String runId, LockLedger ledger, AdvisoryOracle oracle,
                 Survivors survivors) {
    }

    /**
     * How long a refused worker pauses before it tries again: a few milliseconds, drawn anew each
     * time; often enough that two tries meet on a connection now and then however fast the machine.
     */
    private static final int RETRY_MIN_MILLIS = 1;
    private static final int RETRY_MAX_MILLIS = 4;

    final WorkerContext context;
    private final PgSessions.Session session;
    final String resource;
    private final AdvisoryKey key;
    final Setup setup;
    private final LockLedger ledger;
    private final AdvisoryOracle oracle;
    /** Per pooled session (its pid): what this worker's lane says on it. */
    private final Map<Integer, Words> words = new HashMap<>();
    /** Whether the lane says this worker waits to try again (a refused try). */
    private boolean retrying;
    /** Whether this request already met another invoice's lock: a collision counts once a request. */
    private boolean collided;
    /** How many times this worker believes it holds its lock now; the strategies read it, only these steps change it. */
    int believed;
    /** The backend pid its lock was first granted on, while it believes it holds it. */
    private int grantedOn;
    /** Died: out of the run for good; later operations do nothing. Set only by {@link #die}. */
    boolean out;

    AdvisoryWorker(WorkerContext context, PgSessions.Session session, String resource, AdvisoryKey key, Setup setup) {
        this.context = context;
        this.session = session;
        this.resource = resource;
        this.key = key;
        this.setup = setup;
        this.ledger = setup.ledger();
        this.oracle = setup.oracle();
        session.tracks(key);
    }

    /** One request, the strategy's way: lock, work, unlock (or commit), on the connections it chooses. */
    abstract void request() throws Exception;

    @Override
    public final void operation(int n) throws Exception {
        if (out) {
            return;
        }
        if (n == 0) {
            context.mark(EventKind.LOCK_KEY, resource, LockKeys.encode(key));
        }
        context.gate(AdvisoryLockLab.BEFORE_LOCK);
        request();
        if (out) {
            survive();
            return;
        }
        context.state(ActorState.RUNNING);
        if (n == setup.ops() - 1) {
            ledger.finished(context.name());
        }
    }

    /** One try for the lock, on a connection of its choosing; {@code last} if the worker gives up when refused. */
    @FunctionalInterface
    interface Attempt {
        boolean granted(boolean last) throws Exception;
    }

    /**
     * Takes the lock once more, by {@code attempt}s: a blocking call waits in PostgreSQL until
     * it is granted; a try refused is tried again every few milliseconds until the worker's
     * patience runs out, and then the request fails, "still locked", as the article's withLock
     * throws.
     */
    final boolean take(Attempt attempt) throws Exception {
        long deadline = context.nanoTime() + setup.patienceNanos();
        int tries = 0;
        collided = false;
        retrying = false;
        while (true) {
            tries++;
            boolean last = context.nanoTime() - deadline >= 0 || context.stopping();
            if (attempt.granted(last)) {
                return true;
            }
            if (last) {
                ledger.gaveUp();
                context.mark(EventKind.NOTE, context.name() + " gave up its request after "
                        + AdvisoryVerdict.count(tries, "try", "tries") + ": still locked", tries);
                return false;
            }
            if (!retrying) {
                context.state(ActorState.WAITING, "lock on " + resource + ", trying again");
                retrying = true;
            }
            context.backOff(TimeUnit.MILLISECONDS.toNanos(context.random().nextInt(RETRY_MIN_MILLIS, RETRY_MAX_MILLIS + 1)));
        }
    }

    /**
     * Takes the lock on a connection of its own, which it keeps while it holds the lock: each
     * try borrows one (in a transaction, for a transaction-level lock) and gives it back when
     * refused, so a worker waiting to try again holds no connection. Returns the connection
     * holding the lock, or null if the worker gave up.
     */
    final PgSessions.Lease takeOnOwnConnection(boolean transactionLevel) throws Exception {
        PgSessions.Lease[] taken = new PgSessions.Lease[1];
        boolean granted = take(last -> {
            PgSessions.Lease lease = borrow();
            try {
                Connection c = lease.connection();
                if (transactionLevel) {
                    c.setAutoCommit(false);
                }
                if (lock(lease, transactionLevel, last)) {
                    taken[0] = lease;
                    return true;
                }
                if (transactionLevel) {
                    c.rollback();
                    c.setAutoCommit(true);
                }
                return false;
            } finally {
                if (taken[0] == null) {
                    lease.close();
                }
            }
        });
        return granted ? taken[0] : null;
    }

    /**
     * One lock call on {@code lease}: granted (believed once more) or, trying, refused; a
     * refusal is a retry unless it is the {@code last} try. A blocking call waits in PostgreSQL
     * until it is granted.
     */
    final boolean lock(PgSessions.Lease lease, boolean transactionLevel, boolean last) throws SQLException {
        Words words = words(lease.pid());
        String on = words.on();
        boolean blocking = setup.acquire() == AdvisoryLockLab.Acquire.BLOCKING;
        String call = (transactionLevel ? "xact-lock" : "lock");
        if (blocking) {
            noteCollision("waits");
            context.mark(EventKind.LOCK_REQUESTED, resource, lease.pid());
        }
        // Asking, the lane waits: the server may grant the lock before the answer reaches the
        // worker, and its lane says so the moment it does, before anyone is told it holds it.
        if (believed == 0 && !retrying) {
            context.state(ActorState.WAITING, words.asking());
        }
        session.asks(key, lease.pid());
        boolean granted;
        try {
            granted = LockCalls.call(lease.connection(), blocking ? call : "try-" + call, key);
            if (granted) {
                int times = believed + 1;
                context.state(ActorState.CRITICAL, times > 1 ? resource + " · locked " + times + "× on " + on
                        : words.locked());
                ledger.granted();
                context.mark(EventKind.LOCK_ACQUIRED, resource, lease.pid());
                if (believed == 0) {
                    grantedOn = lease.pid();
                    enter(lease.pid());
                }
                believe(times, transactionLevel);
            }
        } finally {
            session.asks(null, 0);
        }
        if (granted) {
            return true;
        }
        String holders = oracle.holders(key);
        ledger.refused(holders.isEmpty());
        context.mark(last ? EventKind.LOCK_REFUSED : EventKind.RETRY, resource + " (key " + key + ") on " + on
                + (holders.isEmpty() ? ": no worker holds it" : believed > 0 ? ": " + context.name()
                + " holds it itself, on another connection" : ": " + holders + " holds it"), lease.pid());
        noteCollision("was refused");
        return false;
    }

    /** What this worker's lane says on a pooled session, made once: it says it on every request. */
    private Words words(int pid) {
        return words.computeIfAbsent(pid, p -> {
            String on = AdvisoryScenario.sessionName(p);
            boolean blocking = setup.acquire() == AdvisoryLockLab.Acquire.BLOCKING;
            return new Words(on, (blocking ? "lock on " : "trying the lock on ") + resource + " (" + on + ")",
                    resource + " · locked on " + on, resource + " · the work on " + on,
                    resource + " · unlocking on " + on);
        });
    }

    /** Another invoice's lock in this worker's way: its key is the same. Counted and said, once a request. */
    private void noteCollision(String what) {
        if (collided) {
            return;
        }
        String words = oracle.collision(context.name(), resource, key, what);
        if (words != null) {
            collided = true;
            context.mark(EventKind.KEY_COLLISION, words, key.twoKeys() ? 0 : key.key());
        }
    }

    /** In the critical section now; says so if another worker is inside on the same invoice. */
    private void enter(int pid) {
        String overlap = oracle.enter(context.name(), resource, pid);
        if (overlap != null) {
            ledger.place(context.violation(AdvisoryScenario.OVERLAPS, 1));
            context.mark(EventKind.NOTE, overlap, pid);
        }
    }

    /** Out of the critical section: its first unlock, its commit, its death. */
    final void leave() {
        oracle.leave(context.name(), resource);
    }

    final void believe(int times, boolean transactionLevel) {
        believed = times;
        session.believes(key, grantedOn, times, transactionLevel);
        ledger.believes(context.name(), resource, grantedOn, times);
    }

    /**
     * Holds the lock: the after-lock gate, perhaps death there, then the work on {@code held}
     * (or, pooled, on whichever connection is free). Returns false if the worker died.
     */
    final boolean holdAndWork(PgSessions.Lease held) throws Exception {
        context.gate(AdvisoryLockLab.AFTER_LOCK);
        if (context.fault(AdvisoryLockLab.DIES_HOLDING)) {
            die(held);
            return false;
        }
        if (held != null) {
            work(held);
        } else {
            try (PgSessions.Lease lease = borrow()) {
                work(lease);
            }
        }
        return true;
    }

    private void work(PgSessions.Lease lease) throws SQLException {
        context.state(ActorState.CRITICAL, words(lease.pid()).working());
        try (PreparedStatement ps = lease.connection().prepareStatement(LockCalls.SQL.get("work"))) {
            ps.setInt(1, setup.workMillis());
            ps.setString(2, context.name());
            ps.setString(3, setup.runId());
            ps.setString(4, resource);
            ps.executeUpdate();
        }
    }

    /**
     * One unlock on {@code lease}, whatever connection that is: true if its session held the
     * lock, false otherwise. Whatever it answers, the worker believes it holds the lock once less.
     */
    final void unlock(PgSessions.Lease lease) throws SQLException {
        leave();
        Words said = words(lease.pid());
        String on = said.on();
        boolean believedIt = believed > 0;
        if (believedIt) {
            context.state(ActorState.HOLDING, said.unlocking());
        }
        boolean answer = LockCalls.call(lease.connection(), "unlock", key);
        int from = grantedOn;
        if (believedIt) {
            believe(believed - 1, false);
        }
        if (answer) {
            String stray = oracle.released(context.name(), on, believedIt);
            context.mark(EventKind.LOCK_RELEASED, resource, lease.pid());
            if (stray != null) {
                context.mark(EventKind.NOTE, stray, lease.pid());
            }
            return;
        }
        String left = oracle.unlockFailed(context.name(), on, AdvisoryScenario.sessionName(from), believedIt);
        context.mark(EventKind.UNLOCK_FALSE, resource + " on " + on + (believedIt ? "" : ": nothing left to unlock"),
                lease.pid());
        if (left != null) {
            ledger.place(context.violation(AdvisoryScenario.LEFT_BEHIND, 1));
            context.mark(EventKind.NOTE, left, from);
        }
    }

    /** At the fault gate: dies holding the lock; its connection goes back to the pool without an unlock. */
    private void die(PgSessions.Lease held) throws SQLException {
        boolean transactionLevel = setup.strategy().transactionLevel();
        out = true;
        ledger.died();
        leave();
        int had = believed;
        believe(0, transactionLevel);
        String where = AdvisoryScenario.sessionName(held != null ? held.pid() : grantedOn);
        if (!transactionLevel) {
            oracle.diedHolding(context.name(), resource, where, had);
            // One ✕ per lock it kept (three, when it took it three times): the marks count what the verdict counts.
            for (int i = 0; i < had; i++) {
                ledger.place(context.violation(AdvisoryScenario.LEFT_BEHIND, 1));
            }
        }
        context.state(ActorState.FAILED, "died holding the lock on " + resource + " (" + where + ")");
        ledger.finished(context.name());
        setup.survivors().done();
        if (held != null) {
            held.close();
        }
        if (transactionLevel) {
            for (int i = 0; i < had; i++) {
                context.mark(EventKind.LOCK_RELEASED, resource, held == null ? grantedOn : held.pid());
            }
        }
    }

    /**
     * A connection from the pool. When the pool has none free just then, the lane says the
     * worker waits for one (with blocking locks, waiters hold theirs while they wait).
     */
    final PgSessions.Lease borrow() throws SQLException {
        if (session.poolExhausted() && context.currentState() != ActorState.WAITING) {
            context.state(ActorState.WAITING, "a free connection in the pool");
            retrying = false;
        }
        return session.borrow();
    }

    /** Dead: stays on its lane, out of the game, until the others are done. */
    private void survive() throws InterruptedException {
        setup.survivors().outlast(context, () -> { });
    }

    @Override
    public void abort() {
        session.abort();
    }

    @Override
    public void close() throws SQLException {
        ledger.finished(context.name());
        if (!out) {
            setup.survivors().done();
        }
        session.close();
    }

    /** A worker's lane's words on one pooled session: its name, and the states said there. */
    private record Words(String on, String asking, String locked, String working, String unlocking) {
    }
}
