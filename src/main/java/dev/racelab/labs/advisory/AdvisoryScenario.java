package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgLockObserver;
import dev.racelab.backend.PgSessions;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
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
import dev.racelab.labs.support.Survivors;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * One run of the advisory-lock lab: every worker, once per operation, takes the lock on its
 * invoice the strategy's way, does the work, and lets the lock go; all through one HikariCP pool.
 *
 * <p><b>What each worker believes.</b> A worker counts the locks it believes it holds (one per
 * lock call the server granted, one less per unlock it sent, none after a commit or when it dies)
 * and tells the run's sessions ({@link PgSessions.Session#believes}), so the lock observer names
 * the believers as holders and a lock nobody believes in as an orphan. Every lock call and unlock
 * is on the worker's lane with the backend pid it ran on, so the lab's view rebuilds PostgreSQL's
 * lock table, session by session, from the record alone.
 *
 * <p><b>The oracle.</b> {@code STUCK} when an advisory lock of the run is held at the end, or for
 * ever, by a session no worker believes holds it: {@code pg_locks}, read on RaceLab's own session,
 * names the pool connection; a fresh session's try is refused then and there. {@code STUCK} as well
 * when a lock was left behind (a ✕) and is gone by the end only because an unlock no worker owed
 * released it ({@link #freedByLuck}): a run with ✕ marks for locks left behind is never SAFE. {@code RACE} when two
 * workers were inside the critical section of one invoice at once. {@code SAFE} otherwise, with
 * the counts. With blocking locks, a run whose every unfinished worker waits in PostgreSQL for a
 * lock that only an orphan or a waiting worker holds ends {@code STUCK} a second after it went
 * quiet ({@link #deadlock}): nothing can ever unlock it.
 *
 * <p>Threads: each worker's thread runs its own script; the counts are atomic and the maps
 * concurrent; the supervisor judges after the workers ended, or while they are stuck.
 */
final class AdvisoryScenario implements Scenario {

    static final String LEFT_BEHIND = "locks left behind";
    static final String OVERLAPS = "overlapping critical sections";
    static final String ORPHANED = "orphaned locks";

    private static final SqlFile SQL = SqlFile.load(AdvisoryScenario.class, "advisory-lock.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("advisory-lock", 1, SQL);
    /**
     * How long a refused worker pauses before it tries again: a few milliseconds, drawn anew each
     * time; often enough that two tries meet on a connection now and then however fast the machine.
     */
    private static final int RETRY_MIN_MILLIS = 1;
    private static final int RETRY_MAX_MILLIS = 4;

    private final AdvisoryStrategy strategy;
    private final RunSetup setup;
    private final PgFixture pg;
    private final AdvisoryLockLab.Acquire acquire;
    private final LockKeys.Resources resources;
    /** Each resource's lock key in this run. */
    private final Map<String, AdvisoryKey> keyOf = new LinkedHashMap<>();
    private final int depth;
    private final int unlocks;
    private final int workMillis;
    private final long patienceNanos;
    private final Survivors survivors;

    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder refusedByNobody = new LongAdder();
    private final LongAdder gaveUp = new LongAdder();
    private final LongAdder trueUnlocks = new LongAdder();
    private final LongAdder falseUnlocks = new LongAdder();
    private final LongAdder overlaps = new LongAdder();
    private final LongAdder collisions = new LongAdder();
    private final LongAdder deaths = new LongAdder();
    /** Locks left behind in a connection nobody believes holds them, one ✕ each, whatever happens to them later. */
    private final LongAdder leftBehind = new LongAdder();
    /** Per invoice, the workers inside its critical section now (from a grant to the first unlock). */
    private final Map<String, Set<String>> inside = new ConcurrentHashMap<>();
    /** Per worker that believes it holds its lock now: the invoice it is for, and the pid it was granted on first. */
    private final Map<String, Hold> holding = new ConcurrentHashMap<>();
    /** Workers that finished their operations or died: the rest may still move. */
    private final Set<String> finished = ConcurrentHashMap.newKeySet();
    /** How the first lock was left behind, in words, for the verdict; and the overlaps, the same. */
    private final AtomicReference<String> firstLeftBehind = new AtomicReference<>();
    private final AtomicReference<String> firstOverlap = new AtomicReference<>();
    private final AtomicReference<String> firstCollision = new AtomicReference<>();
    /** How an unlock that no worker owed first released a lock, in words: it may free a lock left behind. */
    private final AtomicReference<String> firstStrayRelease = new AtomicReference<>();
    /** Sequence numbers of the ✕ marks, for the outcome's places. */
    private final List<Long> places = new CopyOnWriteArrayList<>();

    AdvisoryScenario(Postgres postgres, AdvisoryStrategy strategy, RunSetup setup) throws SQLException {
        this.strategy = strategy;
        this.setup = setup;
        this.acquire = setup.get(AdvisoryLockLab.ACQUIRE);
        this.resources = setup.get(AdvisoryLockLab.RESOURCES);
        this.depth = setup.get(AdvisoryLockLab.REENTRANCY).locks();
        this.unlocks = setup.get(AdvisoryLockLab.REENTRANCY).unlocks();
        this.workMillis = setup.get(AdvisoryLockLab.WORK_MS);
        this.patienceNanos = TimeUnit.MILLISECONDS.toNanos(setup.get(AdvisoryLockLab.PATIENCE_MS));
        this.survivors = new Survivors(setup.workers());
        LockKeys keys = setup.get(AdvisoryLockLab.KEYS);
        for (String name : resources.names()) {
            keyOf.put(name, keys.of(setup.runId(), name));
        }
        this.pg = new PgFixture(postgres, setup, TABLES, PgSessions.Mode.pooled(setup.get(AdvisoryLockLab.POOL_SIZE)));
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("add-resource"))) {
            for (String name : resources.names()) {
                ps.setString(1, setup.runId());
                ps.setString(2, name);
                ps.setString(3, keyOf.get(name).toString());
                ps.executeUpdate();
            }
        } catch (SQLException | RuntimeException e) {
            pg.close();
            throw e;
        }
    }

    @Override
    public LabWorker worker(WorkerContext context) throws SQLException {
        return new Worker(context, pg.session(context), resources.of(context.index()));
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(pg.lockObserver());
    }

    @Override
    public Outcome judge(RunSummary summary) throws SQLException {
        PgLockObserver.AdvisoryLocks locks = pg.advisoryLocks();
        if (!locks.orphans().isEmpty()) {
            return stuck(locks, false);
        }
        if (leftBehind() > 0) {
            return freedByLuck(locks);
        }
        Map<String, Long> violations = new LinkedHashMap<>();
        if (overlaps.sum() > 0) {
            violations.put(OVERLAPS, overlaps.sum());
            return new Outcome(Verdict.RACE, count(overlaps.sum(), "overlapping critical section"),
                    firstOverlap.get() + " " + totals(), violations, metrics(locks), places);
        }
        String headline = "no overlap, no lock left behind";
        if (collisions.sum() > 0) {
            headline += "; " + count(collisions.sum(), "time") + " another invoice's lock stood in the way";
        }
        return new Outcome(Verdict.SAFE, headline, (collided() + "Every lock taken was released; pg_locks holds no "
                + "advisory lock of the run. " + totals()).strip(), violations, metrics(locks), places);
    }

    /**
     * Quiet for a second with blocking locks: if every worker still going waits in PostgreSQL for
     * a lock that only an orphan, or only workers that wait themselves, hold, nothing can ever
     * unlock it, so the run ends now as {@link #diagnose} would at the timeout.
     */
    @Override
    public Outcome deadlock(RunSummary summary) throws SQLException {
        if (acquire != AdvisoryLockLab.Acquire.BLOCKING) {
            return null;
        }
        PgLockObserver.AdvisoryLocks locks = pg.advisoryLocks();
        return hopeless(locks) ? stuck(locks, true) : null;
    }

    /** No progress for the timeout: an orphan or a hopeless wait named, or the engine's own STUCK. */
    @Override
    public Outcome diagnose(RunSummary summary) throws SQLException {
        PgLockObserver.AdvisoryLocks locks = pg.advisoryLocks();
        return !locks.orphans().isEmpty() || hopeless(locks) ? stuck(locks, true) : null;
    }

    /**
     * Whether every unfinished worker waits in PostgreSQL for an advisory lock whose holder no
     * worker that can still move believes it holds.
     */
    private boolean hopeless(PgLockObserver.AdvisoryLocks locks) {
        Map<String, PgLockObserver.Awaited> waits = waits(locks);
        List<String> going = going();
        if (going.isEmpty() || !waits.keySet().containsAll(going)) {
            return false;
        }
        for (PgLockObserver.Awaited wait : waits.values()) {
            PgLockObserver.Held holder = heldFor(locks, wait.key());
            if (holder == null || !holder.believers().stream().allMatch(b -> waits.containsKey(b.worker()))) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, PgLockObserver.Awaited> waits(PgLockObserver.AdvisoryLocks locks) {
        Map<String, PgLockObserver.Awaited> waits = new LinkedHashMap<>();
        locks.awaited().stream().filter(a -> a.user() != null).forEach(a -> waits.putIfAbsent(a.user(), a));
        return waits;
    }

    private static PgLockObserver.Held heldFor(PgLockObserver.AdvisoryLocks locks, AdvisoryKey key) {
        return locks.held().stream().filter(h -> h.key().equals(key)).findFirst().orElse(null);
    }

    /** The workers that have not finished their operations nor died, in order. */
    private List<String> going() {
        List<String> going = new ArrayList<>();
        for (int i = 0; i < setup.workers(); i++) {
            String name = AdvisoryLockLab.WORKER + "-" + (i + 1);
            if (!finished.contains(name)) {
                going.add(name);
            }
        }
        return going;
    }

    /**
     * STUCK: the orphans {@code pg_locks} shows, by the pool connection holding each, how the
     * first was left behind, and what it blocked; {@code live} while workers wait for it now.
     */
    private Outcome stuck(PgLockObserver.AdvisoryLocks locks, boolean live) throws SQLException {
        List<PgLockObserver.Held> orphans = locks.orphans();
        Map<String, PgLockObserver.Awaited> waits = waits(locks);
        Map<String, Long> violations = new LinkedHashMap<>();
        StringBuilder why = new StringBuilder();
        String headline;
        if (!orphans.isEmpty()) {
            violations.put(ORPHANED, (long) orphans.size());
            PgLockObserver.Held first = orphans.get(0);
            headline = orphans.size() == 1
                    ? "advisory lock " + first.key() + " orphaned in " + first.session()
                    : orphans.size() + " advisory locks orphaned: " + orphans.stream()
                            .map(h -> h.key() + " in " + h.session()).collect(Collectors.joining(", "));
            why.append(orphans.size() == 1 ? first.session() + " holds it" : "Their connections hold them")
                    .append(", back in the pool; no worker believes it holds ").append(orphans.size() == 1 ? "it" : "them")
                    .append(", so nobody will ever unlock ").append(orphans.size() == 1 ? "it. " : "them. ");
            if (firstLeftBehind.get() != null) {
                why.append(firstLeftBehind.get()).append(' ');
            }
        } else {
            headline = count(waits.size(), "worker") + " wait" + (waits.size() == 1 ? "s" : "") + " for ever";
        }
        if (!waits.isEmpty()) {
            why.append(String.join(", ", waits.keySet())).append(waits.size() == 1 ? " waits" : " wait")
                    .append(" in pg_locks (granted = false) for a lock only ")
                    .append(orphans.isEmpty() ? "a worker that waits itself holds. " : "the orphan holds. ");
        }
        if (refusedByNobody.sum() > 0) {
            why.append(count(refusedByNobody.sum(), "try", "tries")).append(refusedByNobody.sum() == 1 ? " was" : " were")
                    .append(" refused (\"still locked\") while no worker held the lock. ");
        }
        if (!live && !orphans.isEmpty() && refusedNow(orphans.get(0).key())) {
            why.append("A fresh session asked for it just now and was refused. ");
        }
        if (overlaps.sum() > 0) {
            violations.put(OVERLAPS, overlaps.sum());
            why.append("Also ").append(count(overlaps.sum(), "time")).append(" a worker got the lock while another "
                    + "held it: ").append(firstOverlap.get()).append(' ');
        }
        long left = leftBehind();
        if (left > 0) {
            violations.put(LEFT_BEHIND, left);
        }
        why.append(totals());
        return new Outcome(Verdict.STUCK, headline, why.toString().strip(), violations, metrics(locks), places);
    }

    /**
     * STUCK too when locks were left behind but {@code pg_locks} holds none at the end: an unlock
     * that no worker owed (one too many, on the connection that kept them) released them. While
     * they were left, nobody could unlock them, and every try elsewhere was refused; that one came
     * along is luck, not a fix, so the verdict counts what the ✕ marks count and never says SAFE.
     */
    private Outcome freedByLuck(PgLockObserver.AdvisoryLocks locks) throws SQLException {
        long left = leftBehind();
        Map<String, Long> violations = new LinkedHashMap<>();
        violations.put(LEFT_BEHIND, left);
        StringBuilder why = new StringBuilder();
        if (firstLeftBehind.get() != null) {
            why.append(firstLeftBehind.get()).append(' ');
        }
        if (firstStrayRelease.get() != null) {
            why.append(firstStrayRelease.get()).append(' ');
        }
        why.append("pg_locks holds no advisory lock of the run at the end only because an unlock nobody owed "
                + "came along; no worker believed it held ").append(left == 1 ? "that lock" : "those locks")
                .append(", and nobody would have unlocked ").append(left == 1 ? "it. " : "them. ");
        if (refusedByNobody.sum() > 0) {
            why.append(count(refusedByNobody.sum(), "try", "tries")).append(refusedByNobody.sum() == 1 ? " was" : " were")
                    .append(" refused (\"still locked\") while no worker held the lock. ");
        }
        if (overlaps.sum() > 0) {
            violations.put(OVERLAPS, overlaps.sum());
            why.append("Also ").append(count(overlaps.sum(), "time")).append(" a worker got the lock while another "
                    + "held it: ").append(firstOverlap.get()).append(' ');
        }
        why.append(totals());
        return new Outcome(Verdict.STUCK, count(left, "lock") + " left behind, freed only by an unlock nobody owed",
                why.toString().strip(), violations, metrics(locks), places);
    }

    /** Whether a session of RaceLab's own is refused the lock {@code key} now; if it got it, it lets it go at once. */
    private boolean refusedNow(AdvisoryKey key) throws SQLException {
        Connection admin = pg.admin();
        if (lockCall(admin, "try-lock", key)) {
            lockCall(admin, "unlock", key);
            return false;
        }
        return true;
    }

    /** Runs the lock call {@code statement} (its two-key form for a two-key lock) on {@code c}; its boolean answer, or true for one that answers nothing. */
    private static boolean lockCall(Connection c, String statement, AdvisoryKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SQL.get(key.twoKeys() ? statement + "-2" : statement))) {
            if (key.twoKeys()) {
                ps.setInt(1, key.key1());
                ps.setInt(2, key.key2());
            } else {
                ps.setLong(1, key.key());
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Object answer = rs.getObject(1);
                return !(answer instanceof Boolean granted) || granted;
            }
        }
    }

    /**
     * Locks left behind: each time a worker stopped believing it held a lock its connection kept
     * (an unlock on another connection, a death at the fault gate), as many as the ✕ marks. An
     * unlock nobody owed may free one later, by luck; it was left behind all the same.
     */
    private long leftBehind() {
        return leftBehind.sum();
    }

    private String totals() {
        return count(acquisitions.sum(), "lock") + " granted, " + count(refused.sum(), "try", "tries") + " refused"
                + (gaveUp.sum() > 0 ? " (" + count(gaveUp.sum(), "request") + " given up)" : "") + ", "
                + count(falseUnlocks.sum(), "unlock") + " returned false.";
    }

    private String collided() {
        return firstCollision.get() == null ? "" : firstCollision.get() + " ";
    }

    private Map<String, Number> metrics(PgLockObserver.AdvisoryLocks locks) throws SQLException {
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("acquisitions", acquisitions.sum());
        metrics.put("refusedTries", refused.sum());
        metrics.put("requestsGivenUp", gaveUp.sum());
        metrics.put("trueUnlocks", trueUnlocks.sum());
        metrics.put("falseUnlocks", falseUnlocks.sum());
        metrics.put("locksLeftBehind", leftBehind());
        metrics.put("orphanedLocks", locks.orphans().size());
        metrics.put("overlappingSections", overlaps.sum());
        metrics.put("collisions", collisions.sum());
        metrics.put("deaths", deaths.sum());
        metrics.put("workDone", workDone());
        metrics.put("poolSize", setup.get(AdvisoryLockLab.POOL_SIZE));
        if (resources == LockKeys.Resources.COLLIDING && keyOf.get(LockKeys.FIRST).equals(keyOf.get(LockKeys.SECOND))) {
            metrics.put("collidingKey", keyOf.get(LockKeys.FIRST).key());
        }
        return metrics;
    }

    private long workDone() throws SQLException {
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("uses"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static String count(long n, String noun) {
        return count(n, noun, noun + "s");
    }

    static String count(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg);
    }

    /** One try for the lock, on a connection of its choosing; {@code last} if the worker gives up when refused. */
    @FunctionalInterface
    private interface Attempt {
        boolean granted(boolean last) throws Exception;
    }

    /** A worker's belief: it holds the lock on {@code resource} {@code times} times, the first granted on backend {@code pid}. */
    private record Hold(String resource, int pid, int times) {
    }

    /** A worker's lane's words on one pooled session: its name, and the states said there. */
    private record Words(String on, String asking, String locked, String working, String unlocking) {
    }

    /** One worker: per operation, lock, work, unlock, the strategy's way. */
    private final class Worker implements LabWorker {

        /** Per pooled session (its pid): what this worker's lane says on it. */
        private final Map<Integer, Words> words = new java.util.HashMap<>();

        private final WorkerContext context;
        private final PgSessions.Session session;
        private final String resource;
        private final AdvisoryKey key;
        /** Whether the lane says this worker waits to try again (a refused try); its own thread's. */
        private boolean retrying;
        /** Whether this request already met another invoice's lock: a collision counts once a request. */
        private boolean collided;
        /** How many times this worker believes it holds its lock now; its own thread's. */
        private int believed;
        /** The backend pid its lock was first granted on, while it believes it holds it. */
        private int grantedOn;
        /** Died: out of the run for good; later operations do nothing. */
        private boolean out;

        Worker(WorkerContext context, PgSessions.Session session, String resource) {
            this.context = context;
            this.session = session;
            this.resource = resource;
            this.key = keyOf.get(resource);
            session.tracks(key);
        }

        @Override
        public void operation(int n) throws Exception {
            if (out) {
                return;
            }
            if (n == 0) {
                context.mark(EventKind.LOCK_KEY, resource, LockKeys.encode(key));
            }
            context.gate(AdvisoryLockLab.BEFORE_LOCK);
            switch (strategy) {
                case SESSION_POOLED -> pooled();
                case SESSION_PINNED -> pinned();
                case XACT_LOCK -> transaction();
            }
            if (out) {
                survive();
                return;
            }
            context.state(ActorState.RUNNING);
            if (n == setup.ops() - 1) {
                finished.add(context.name());
            }
        }

        /** The article's first try: every call on whichever pooled connection is free. */
        private void pooled() throws Exception {
            for (int i = 0; i < depth; i++) {
                boolean granted = take(last -> {
                    try (PgSessions.Lease lease = borrow()) {
                        return lock(lease, false, last);
                    }
                });
                if (!granted) {
                    for (int taken = believed; taken > 0; taken--) {
                        try (PgSessions.Lease lease = borrow()) {
                            unlock(lease);
                        }
                    }
                    return;
                }
            }
            if (!holdAndWork(null)) {
                return;
            }
            for (int i = 0; i < unlocks; i++) {
                context.gate(AdvisoryLockLab.BEFORE_UNLOCK);
                try (PgSessions.Lease lease = borrow()) {
                    unlock(lease);
                }
            }
        }

        /**
         * Lock, work and unlock on one connection, kept from the first lock to the last unlock.
         * Whatever ends the span early (the work fails, the run stops the worker at a gate), the
         * unlocks still run, in {@code finally}, on that connection, before it goes back to the
         * pool: the fix must not leak the way the broken strategy does. The one exception is the
         * fault gate {@code worker-dies-holding}: a worker that dies there gives its connection
         * back without an unlock on purpose, and believes it holds nothing, so nothing is undone.
         */
        private void pinned() throws Exception {
            PgSessions.Lease held = takeOnOwnConnection(false);
            if (held == null) {
                return;
            }
            try (PgSessions.Lease lease = held) {
                Throwable failure = null;
                try {
                    // Taken again on the session that holds it: granted at once, a session lock is re-entrant.
                    for (int i = 1; i < depth; i++) {
                        lock(lease, false, true);
                    }
                    if (!holdAndWork(lease)) {
                        return;
                    }
                    for (int i = 0; i < unlocks; i++) {
                        context.gate(AdvisoryLockLab.BEFORE_UNLOCK);
                        unlock(lease);
                    }
                } catch (Throwable t) {
                    failure = t;
                    throw t;
                } finally {
                    if (!out) {
                        letGo(lease, failure);
                    }
                }
            }
        }

        /**
         * Unlocks on {@code lease} every time this worker still believes it holds its lock there,
         * after {@code failure} (or a stop) cut its span short; nothing after a span that ended
         * normally. An unlock that fails too is added to {@code failure}, which it never hides.
         */
        private void letGo(PgSessions.Lease lease, Throwable failure) throws SQLException {
            if (believed == 0) {
                return;
            }
            context.mark(EventKind.NOTE, context.name() + " lets its lock go on " + sessionName(lease.pid())
                    + " on its way out (" + (context.stopping() ? "the run stopped it" : "its span failed") + ")",
                    lease.pid());
            try {
                while (believed > 0) {
                    unlock(lease);
                }
            } catch (SQLException | RuntimeException e) {
                // The unlock failed too (its session gone, most likely): the worker has given the
                // lock up all the same; whether its session still holds it is pg_locks' to say.
                believe(0, false);
                if (failure == null) {
                    throw e;
                }
                failure.addSuppressed(e);
            }
        }

        /** BEGIN; the transaction-level lock; the work; COMMIT, which releases it. */
        private void transaction() throws Exception {
            PgSessions.Lease held = takeOnOwnConnection(true);
            if (held == null) {
                return;
            }
            int pid = held.pid();
            try (PgSessions.Lease lease = held) {
                Connection c = lease.connection();
                for (int i = 1; i < depth; i++) {
                    lock(lease, true, true);
                }
                if (holdAndWork(lease)) {
                    context.gate(AdvisoryLockLab.BEFORE_UNLOCK);
                    leave();
                    context.state(ActorState.HOLDING, resource + " · committing on " + sessionName(pid));
                    c.commit();
                    c.setAutoCommit(true);
                    endOfTransaction(pid, "the commit released it");
                    return;
                }
            } catch (Exception | Error e) {
                // Its span ended early (the work or the commit failed, or the run stopped it at a
                // gate): the lease closed as the exception left the block, the pool rolled the
                // transaction back, and the lock went with it. Said so, or the panel would show a
                // lock the worker no longer has.
                leave();
                endOfTransaction(pid, "the pool rolled " + sessionName(pid) + "'s transaction back as "
                        + (context.stopping() ? "the run stopped " + context.name() : context.name() + "'s span failed")
                        + ": the transaction-level lock went with it");
                throw e;
            }
            // Dead: the lease closed without a commit, and the pool rolled its transaction back.
            context.mark(EventKind.NOTE, "the pool rolled back " + sessionName(pid) + "'s transaction as it "
                    + "took the connection back: the transaction-level lock went with it", pid);
        }

        /**
         * Takes the lock on a connection of its own, which it keeps while it holds the lock: each
         * try borrows one (in a transaction, for a transaction-level lock) and gives it back when
         * refused, so a worker waiting to try again holds no connection. Returns the connection
         * holding the lock, or null if the worker gave up.
         */
        private PgSessions.Lease takeOnOwnConnection(boolean transactionLevel) throws Exception {
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

        /** The transaction ended: every transaction-level lock it held is gone. */
        private void endOfTransaction(int pid, String how) {
            int had = believed;
            for (int i = 0; i < had; i++) {
                released.increment();
                context.mark(EventKind.LOCK_RELEASED, resource, pid);
            }
            believe(0, true);
            if (had > 0) {
                context.mark(EventKind.NOTE, how + (had > 1 ? " (all " + had + " of them)" : ""), had);
            }
        }

        /**
         * Takes the lock once more, by {@code attempt}s: a blocking call waits in PostgreSQL until
         * it is granted; a try refused is tried again every few milliseconds until the worker's
         * patience runs out, and then the request fails, "still locked", as the article's withLock
         * throws.
         */
        private boolean take(Attempt attempt) throws Exception {
            long deadline = System.nanoTime() + patienceNanos;
            int tries = 0;
            collided = false;
            retrying = false;
            while (true) {
                tries++;
                boolean last = System.nanoTime() >= deadline || context.stopping();
                if (attempt.granted(last)) {
                    return true;
                }
                if (last) {
                    gaveUp.increment();
                    context.mark(EventKind.NOTE, context.name() + " gave up its request after "
                            + count(tries, "try", "tries") + ": still locked", tries);
                    return false;
                }
                if (!retrying) {
                    context.state(ActorState.WAITING, "lock on " + resource + ", trying again");
                    retrying = true;
                }
                TimeUnit.MILLISECONDS.sleep(context.random().nextInt(RETRY_MIN_MILLIS, RETRY_MAX_MILLIS + 1));
            }
        }

        /**
         * One lock call on {@code lease}: granted (believed once more) or, trying, refused; a
         * refusal is a retry unless it is the {@code last} try. A blocking call waits in PostgreSQL
         * until it is granted.
         */
        private boolean lock(PgSessions.Lease lease, boolean transactionLevel, boolean last) throws SQLException {
            Words words = words(lease.pid());
            String on = words.on();
            boolean blocking = acquire == AdvisoryLockLab.Acquire.BLOCKING;
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
            session.asks(key);
            boolean granted;
            try {
                granted = lockCall(lease.connection(), blocking ? call : "try-" + call, key);
                if (granted) {
                    int times = believed + 1;
                    context.state(ActorState.CRITICAL, times > 1 ? resource + " · locked " + times + "× on " + on
                            : words.locked());
                    acquisitions.increment();
                    context.mark(EventKind.LOCK_ACQUIRED, resource, lease.pid());
                    if (believed == 0) {
                        grantedOn = lease.pid();
                        enter(lease.pid());
                    }
                    believe(times, transactionLevel);
                }
            } finally {
                session.asks(null);
            }
            if (granted) {
                return true;
            }
            refused.increment();
            String holders = holders();
            if (holders.isEmpty()) {
                refusedByNobody.increment();
            }
            context.mark(last ? EventKind.LOCK_REFUSED : EventKind.RETRY, resource + " (key " + key + ") on " + on
                    + (holders.isEmpty() ? ": no worker holds it" : believed > 0 ? ": " + context.name()
                    + " holds it itself, on another connection" : ": " + holders + " holds it"), lease.pid());
            noteCollision("was refused");
            return false;
        }

        /** What this worker's lane says on a pooled session, made once: it says it on every request. */
        private Words words(int pid) {
            return words.computeIfAbsent(pid, p -> {
                String on = sessionName(p);
                boolean blocking = acquire == AdvisoryLockLab.Acquire.BLOCKING;
                return new Words(on, (blocking ? "lock on " : "trying the lock on ") + resource + " (" + on + ")",
                        resource + " · locked on " + on, resource + " · the work on " + on,
                        resource + " · unlocking on " + on);
            });
        }

        /** The workers that believe they hold this worker's key now (any invoice), by name. */
        private String holders() {
            // On every refusal, while others wait on the lock: a loop, and a sort only when several hold it.
            String one = null;
            List<String> several = null;
            for (Map.Entry<String, Hold> e : holding.entrySet()) {
                if (!keyOf.get(e.getValue().resource).equals(key)) {
                    continue;
                }
                if (one == null) {
                    one = e.getKey();
                } else {
                    if (several == null) {
                        several = new ArrayList<>(List.of(one));
                    }
                    several.add(e.getKey());
                }
            }
            if (several == null) {
                return one == null ? "" : one;
            }
            several.sort(null);
            return String.join(", ", several);
        }

        /** Another invoice's lock in this worker's way: its key is the same. Counted and said, once a request. */
        private void noteCollision(String what) {
            if (collided) {
                return;
            }
            for (Map.Entry<String, Hold> other : holding.entrySet()) {
                Hold hold = other.getValue();
                if (!hold.resource.equals(resource) && keyOf.get(hold.resource).equals(key)) {
                    collided = true;
                    collisions.increment();
                    String words = context.name() + " " + what + " on " + resource + " because " + other.getKey()
                            + " holds the lock on " + hold.resource + ": both names hash to " + key + ".";
                    firstCollision.compareAndSet(null, words);
                    context.mark(EventKind.KEY_COLLISION, words, key.twoKeys() ? 0 : key.key());
                    return;
                }
            }
        }

        /** In the critical section now; says so if another worker is inside on the same invoice. */
        private void enter(int pid) {
            Set<String> in = inside.computeIfAbsent(resource, k -> ConcurrentHashMap.newKeySet());
            in.add(context.name());
            for (String other : in) {
                if (!other.equals(context.name())) {
                    overlaps.increment();
                    Hold theirs = holding.get(other);
                    String words = context.name() + "'s lock ran on " + sessionName(pid)
                            + (theirs != null && theirs.pid == pid ? ", the connection that holds " + other
                                    + "'s lock, and a session may take its own lock again: "
                                    : " while " + other + " was inside: ")
                            + "both worked on " + resource + " at once.";
                    firstOverlap.compareAndSet(null, words);
                    mark(context.violation(OVERLAPS, 1));
                    context.mark(EventKind.NOTE, words, pid);
                    return;
                }
            }
        }

        private void leave() {
            Set<String> in = inside.get(resource);
            if (in != null) {
                in.remove(context.name());
            }
        }

        private void believe(int times, boolean transactionLevel) {
            believed = times;
            session.believes(key, grantedOn, times, transactionLevel);
            if (times > 0) {
                holding.put(context.name(), new Hold(resource, grantedOn, times));
            } else {
                holding.remove(context.name());
            }
        }

        /**
         * Holds the lock: the after-lock gate, perhaps death there, then the work on {@code held}
         * (or, pooled, on whichever connection is free). Returns false if the worker died.
         */
        private boolean holdAndWork(PgSessions.Lease held) throws Exception {
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
            try (PreparedStatement ps = lease.connection().prepareStatement(SQL.get("work"))) {
                ps.setInt(1, workMillis);
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
        private void unlock(PgSessions.Lease lease) throws SQLException {
            leave();
            Words said = words(lease.pid());
            String on = said.on();
            boolean believedIt = believed > 0;
            if (believedIt) {
                context.state(ActorState.HOLDING, said.unlocking());
            }
            boolean answer = lockCall(lease.connection(), "unlock", key);
            int from = grantedOn;
            if (believedIt) {
                believe(believed - 1, false);
            }
            if (answer) {
                trueUnlocks.increment();
                released.increment();
                context.mark(EventKind.LOCK_RELEASED, resource, lease.pid());
                if (!believedIt) {
                    String words = "an unlock " + context.name() + " owed nobody released a lock " + on
                            + " held for someone else";
                    firstStrayRelease.compareAndSet(null, "Then " + words + ".");
                    context.mark(EventKind.NOTE, words, lease.pid());
                }
                return;
            }
            falseUnlocks.increment();
            context.mark(EventKind.UNLOCK_FALSE, resource + " on " + on + (believedIt ? "" : ": nothing left to unlock"),
                    lease.pid());
            if (believedIt) {
                String words = context.name() + "'s unlock ran on " + on + ", which held no lock, and returned false: "
                        + "the lock stayed in " + sessionName(from) + ", where " + context.name() + " took it.";
                firstLeftBehind.compareAndSet(null, words);
                leftBehind.increment();
                mark(context.violation(LEFT_BEHIND, 1));
                context.mark(EventKind.NOTE, words, from);
            }
        }

        /** At the fault gate: dies holding the lock; its connection goes back to the pool without an unlock. */
        private void die(PgSessions.Lease held) throws SQLException {
            out = true;
            deaths.increment();
            leave();
            int had = believed;
            believe(0, strategy.transactionLevel());
            String where = sessionName(held != null ? held.pid() : grantedOn);
            if (!strategy.transactionLevel()) {
                String words = context.name() + " died holding the lock on " + resource + ": " + where
                        + " went back to the pool without an unlock, and kept the lock.";
                firstLeftBehind.compareAndSet(null, words);
                // One ✕ per lock it kept (three, when it took it three times): the marks count what the verdict counts.
                for (int i = 0; i < had; i++) {
                    leftBehind.increment();
                    mark(context.violation(LEFT_BEHIND, 1));
                }
            }
            context.state(ActorState.FAILED, "died holding the lock on " + resource + " (" + where + ")");
            finished.add(context.name());
            survivors.done();
            if (held != null) {
                held.close();
            }
            if (strategy.transactionLevel()) {
                for (int i = 0; i < had; i++) {
                    released.increment();
                    context.mark(EventKind.LOCK_RELEASED, resource, held == null ? grantedOn : held.pid());
                }
            }
        }

        /**
         * A connection from the pool. When the pool has none free just then, the lane says the
         * worker waits for one (with blocking locks, waiters hold theirs while they wait).
         */
        private PgSessions.Lease borrow() throws SQLException {
            if (session.poolExhausted() && context.currentState() != ActorState.WAITING) {
                context.state(ActorState.WAITING, "a free connection in the pool");
                retrying = false;
            }
            return session.borrow();
        }

        /** Dead: stays on its lane, out of the game, until the others are done. */
        private void survive() throws InterruptedException {
            survivors.outlast(() -> { });
        }

        private void mark(Event violation) {
            if (violation != null) {
                places.add(violation.seq());
            }
        }

        @Override
        public void abort() {
            session.abort();
        }

        @Override
        public void close() throws SQLException {
            finished.add(context.name());
            if (!out) {
                survivors.done();
            }
            session.close();
        }
    }

    /** A pooled session's name as the run shows it: {@code pool-4711}, after its backend pid. */
    static String sessionName(int pid) {
        return "pool-" + pid;
    }
}
