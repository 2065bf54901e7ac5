package dev.racelab.labs.counter;

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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One run of the counter lab. The oracle compares the increments that committed with the value
 * the row ends at; the difference is the number of increments lost. Each write also learns from
 * the row's trigger how many increments it overwrote: such an overwriting write is marked on the
 * timeline (a different count from the increments lost, see {@link #OVERWRITES}).
 */
final class CounterScenario implements Scenario {

    static final String ROW = "counter";
    static final String ROW_LOCK = "counter row lock";
    /** The key figure: increments that committed but are not in the row's final value. */
    static final String LOST = "lost increments";
    /**
     * What a ✕ on the timeline marks: one write that replaced increments it never saw. One such
     * write can lose several increments, and an increment it replaced may come back in a later
     * overwrite, so their number is not the number of increments lost.
     */
    static final String OVERWRITES = "overwriting writes";

    private static final SqlFile SQL = SqlFile.load(CounterScenario.class, "counter.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("counter", 2, SQL);
    /** Up to 64 workers each have a session; more (the stress runs) share 32, as behind an application server. */
    private static final PgSessions.Mode SESSIONS = PgSessions.Mode.dedicatedUpTo(64, 32);
    private static final String SERIALIZATION_FAILURE = "40001";

    private final LongAdder committed = new LongAdder();
    /** The latest release of the row lock, for drawing which release woke which waiter. */
    private final AtomicReference<Event> lastRelease = new AtomicReference<>();
    private final LongAdder retries = new LongAdder();
    private final LongAdder overwrites = new LongAdder();
    /** Each write's WRITE event, by the row's count of writes when it landed (1 for the first). */
    private final Map<Long, Long> writeEvents = new ConcurrentHashMap<>();

    private final CounterStrategy strategy;
    private final RunSetup setup;
    private final PgFixture pg;

    CounterScenario(Postgres postgres, CounterStrategy strategy, RunSetup setup) throws SQLException {
        this.strategy = strategy;
        this.setup = setup;
        this.pg = new PgFixture(postgres, setup, TABLES, sessions(strategy));
    }

    /**
     * The transactional strategies' isolation level is set once, as each session opens; set
     * around every transaction it would cost two statements more per increment.
     */
    private static PgSessions.Mode sessions(CounterStrategy strategy) {
        return switch (strategy) {
            case READ_MODIFY_WRITE, ATOMIC_UPDATE -> SESSIONS;
            case SELECT_FOR_UPDATE -> SESSIONS.withIsolation(Connection.TRANSACTION_READ_COMMITTED);
            case SERIALIZABLE_RETRY -> SESSIONS.withIsolation(Connection.TRANSACTION_SERIALIZABLE);
        };
    }

    @Override
    public LabWorker worker(WorkerContext context) throws SQLException {
        PgSessions.Session session = pg.session(context);
        return switch (strategy) {
            case READ_MODIFY_WRITE -> new Worker(context, session) {
                @Override
                void increment(Connection c) throws Exception {
                    long value = read(c, "read");
                    context.gate(CounterLab.AFTER_READ);
                    onItsOwn(() -> write(c, value + 1));
                }
            };
            case ATOMIC_UPDATE -> new Worker(context, session) {
                @Override
                void increment(Connection c) throws Exception {
                    context.gate(CounterLab.AFTER_READ);
                    onItsOwn(() -> atomicIncrement(c));
                }
            };
            case SELECT_FOR_UPDATE -> new Worker(context, session) {
                @Override
                void rowLockRequested() {
                    // Held since the SELECT … FOR UPDATE: the lane says so already (critical section).
                }

                @Override
                void rowLockTaken() {
                    // The same.
                }

                @Override
                void increment(Connection c) throws Exception {
                    inTransaction(c, () -> {
                        Event request = context.mark(EventKind.LOCK_REQUESTED, ROW_LOCK, 0);
                        context.state(ActorState.WAITING, ROW_LOCK);
                        long value = read(c, "read-for-update");
                        context.mark(EventKind.LOCK_ACQUIRED, ROW_LOCK, 0);
                        noteWakeUp(request);
                        context.state(ActorState.CRITICAL, ROW_LOCK);
                        context.gate(CounterLab.AFTER_READ);
                        write(c, value + 1);
                        // Recorded as the commit is sent: the commit is what releases the row, and
                        // a waiter can only go on after it, so it always finds this event.
                        lastRelease.set(context.mark(EventKind.LOCK_RELEASED, ROW_LOCK, 0));
                    });
                    context.state(ActorState.RUNNING);
                }
            };
            case SERIALIZABLE_RETRY -> new Worker(context, session) {
                @Override
                void increment(Connection c) throws Exception {
                    while (!context.stopping()) {
                        try {
                            inTransaction(c, () -> {
                                long value = read(c, "read");
                                context.gate(CounterLab.AFTER_READ);
                                write(c, value + 1);
                            });
                            return;
                        } catch (SQLException e) {
                            if (!SERIALIZATION_FAILURE.equals(e.getSQLState())) {
                                throw e;
                            }
                            retries.increment();
                            context.mark(EventKind.RETRY, "serialization failure: another increment committed first", 0);
                            context.gate(CounterLab.BEFORE_READ);
                        }
                    }
                }
            };
        };
    }

    /** A class's participant's increment, as its events tell it: counted as this run's own are. */
    @Override
    public void relayed(WorkerContext worker, EventKind kind, String subject, long value) {
        switch (kind) {
            case OP_END -> committed.increment();
            case RETRY -> retries.increment();
            case VIOLATION -> {
                if (OVERWRITES.equals(subject) && value > 0) {
                    overwrites.increment();
                }
            }
            default -> {
                // Drawn on the lane; nothing to count.
            }
        }
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(
                pg.lockObserver(new PgFixture.Row("the counter row", "row-xmax")),
                pg.valueObserver("counter row", "observe", List.of(ROW)));
    }

    @Override
    public Outcome judge(RunSummary summary) throws SQLException {
        long value = currentValue();
        long expected = committed.sum();
        long lost = expected - value;
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("finalValue", value);
        metrics.put("committedIncrements", expected);
        metrics.put("lostIncrements", lost);
        metrics.put("overwritingWrites", overwrites.sum());
        metrics.put("retries", retries.sum());
        if (lost > 0) {
            return new Outcome(Verdict.RACE, lost + (lost == 1 ? " increment lost" : " increments lost"),
                    expected + " increments committed, but the counter ended at " + value + ": "
                            + overwriteText(overwrites.sum()) + " replaced a value another client had already "
                            + "increased, and " + lost + (lost == 1 ? " increment is" : " increments are") + " gone.",
                    Map.of(LOST, lost), metrics, List.of());
        }
        return new Outcome(Verdict.SAFE, "all " + expected + " increments counted",
                "The counter ended at " + value + ", exactly the number of increments that committed"
                        + (retries.sum() > 0 ? " (" + retries.sum() + " transactions were retried)." : "."),
                Map.of(), metrics, List.of());
    }

    private static String overwriteText(long n) {
        return n == 1 ? "1 write" : n + " writes";
    }

    long currentValue() throws SQLException {
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("read"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg);
    }

    /** A worker's increment loop; the strategy decides how one increment is done. */
    private abstract class Worker implements LabWorker {

        final WorkerContext context;
        private final PgSessions.Session session;
        /** How many writes the row had taken when this worker last read it. */
        private long writesSeen;
        /** Whether this worker's transaction asked for the row's lock with an UPDATE, and its lane says so. */
        private boolean holdingRow;
        /** Whether the statement being made commits on its own (see {@link #onItsOwn}). */
        private boolean onItsOwn;

        Worker(WorkerContext context, PgSessions.Session session) {
            this.context = context;
            this.session = session;
        }

        abstract void increment(Connection c) throws Exception;

        @Override
        public void operation(int n) throws Exception {
            context.gate(CounterLab.BEFORE_READ);
            try (PgSessions.Lease lease = session.borrow()) {
                increment(lease.connection());
            }
            committed.increment();
        }

        long read(Connection c, String statement) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL.get(statement))) {
                ps.setString(1, setup.runId());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long value = rs.getLong(1);
                    writesSeen = rs.getLong(2);
                    context.mark(EventKind.READ, ROW, value);
                    if (setup.joined()) {
                        // Which writes this one will replace, for the class's host to name.
                        context.mark(EventKind.READ_ORDER, ROW, writesSeen);
                    }
                    return value;
                }
            }
        }

        void write(Connection c, long value) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL.get("write"))) {
                ps.setLong(1, value);
                ps.setString(2, setup.runId());
                rowLockRequested();
                try (ResultSet rs = ps.executeQuery()) {
                    rowLockTaken();
                    rs.next();
                    long writes = rs.getLong(2);
                    Event written = context.mark(EventKind.WRITE, ROW, value);
                    if (written != null) {
                        writeEvents.put(writes, written.seq());
                    }
                    inServerOrder(writes);
                    if (noteOverwrite(rs.getLong(1))) {
                        linkOverwritten(writes);
                    }
                }
            }
        }

        void atomicIncrement(Connection c) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL.get("increment"))) {
                ps.setString(1, setup.runId());
                rowLockRequested();
                try (ResultSet rs = ps.executeQuery()) {
                    rowLockTaken();
                    rs.next();
                    context.mark(EventKind.WRITE, ROW, rs.getLong(1));
                    inServerOrder(rs.getLong(3));
                    noteOverwrite(rs.getLong(2));
                }
            }
        }

        /**
         * An UPDATE is about to ask for the row's lock: until its reply comes the worker waits for
         * it (for another transaction's commit, or only for the reply, in which PostgreSQL may
         * already have granted it, so the lane never shows nothing while the server shows a hold).
         */
        void rowLockRequested() {
            if (!holdingRow) {
                holdingRow = true;
                context.state(ActorState.WAITING, ROW_LOCK);
            }
        }

        /**
         * The UPDATE just made took the row's lock, which a transaction keeps until it ends: the
         * worker's lane says it holds the row until then, as PostgreSQL's lock table does. The
         * moment is short, but a busy machine can stretch it, and the lanes must never disagree.
         * An UPDATE on its own has committed, and let the row go, by the time its reply comes: the
         * lane goes back to running once the write is recorded ({@link #onItsOwn}).
         */
        void rowLockTaken() {
            if (!onItsOwn) {
                context.state(ActorState.HOLDING, ROW_LOCK);
            }
        }

        /**
         * A write on its own commits as it lands, and its reply may reach this worker after a later
         * write's reached another: the row's count of writes, which the UPDATE returns, is the
         * server's order, recorded beside the write (the view takes the row's value from the
         * latest). Writes inside a transaction are recorded before the commit lets the row go, in
         * the server's order already.
         */
        private void inServerOrder(long writes) {
            if (onItsOwn) {
                context.mark(EventKind.WRITE_ORDER, ROW, writes);
            }
        }

        /**
         * Runs {@code body}, one UPDATE, on its own: autocommit, one statement and one round trip,
         * as a plain program sends it.
         */
        void onItsOwn(Body body) throws Exception {
            onItsOwn = true;
            try {
                body.run();
            } finally {
                onItsOwn = false;
                if (holdingRow) {
                    holdingRow = false;
                    context.state(ActorState.RUNNING);
                }
            }
        }

        /**
         * With one row lock, releases and grants alternate: if a release happened after this
         * worker asked for the lock, the latest one is the release it waited for.
         */
        void noteWakeUp(Event request) {
            Event release = lastRelease.get();
            if (request != null && release != null && release.seq() > request.seq()) {
                context.mark(EventKind.WOKEN, ROW_LOCK, release.seq());
            }
        }

        private boolean noteOverwrite(long overwritten) {
            if (overwritten > 0) {
                overwrites.increment();
                context.violation(OVERWRITES, overwritten);
            }
            return overwritten > 0;
        }

        /**
         * Points this overwriting write at the writes it never saw: those that landed after its read
         * and before it. A write whose event is not recorded yet (its worker has not got that far)
         * goes without an arrow.
         */
        private void linkOverwritten(long writes) {
            for (long w = writesSeen + 1; w < writes; w++) {
                Long seq = writeEvents.get(w);
                if (seq != null) {
                    context.mark(EventKind.OVERWROTE, ROW, seq);
                }
            }
        }

        /**
         * Runs {@code body} in one transaction, at the isolation level the session was opened with:
         * its WRITE event is recorded before the commit releases the row, in PostgreSQL's order of
         * the writes.
         */
        void inTransaction(Connection c, Body body) throws Exception {
            c.setAutoCommit(false);
            try {
                body.run();
                c.commit();
            } catch (Exception e) {
                if (!c.isClosed()) {
                    c.rollback();
                }
                throw e;
            } finally {
                if (holdingRow) {
                    holdingRow = false;
                    context.state(ActorState.RUNNING);
                }
                if (!c.isClosed()) {
                    c.setAutoCommit(true);
                }
            }
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

    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }
}
