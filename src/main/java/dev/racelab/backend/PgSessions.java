package dev.racelab.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.WorkerContext;
import org.postgresql.PGConnection;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.logging.Logger;

/**
 * The PostgreSQL sessions of one run's workers, in the {@link Mode} the lab chose.
 *
 * <p><b>Dedicated</b>: each worker opens a session of its own, named after it ({@code
 * racelab:client-3}), and keeps it for the whole run, so what {@code pg_locks} shows maps straight
 * to a worker. <b>Pooled</b>: the workers share a HikariCP pool of a fixed size, as behind an
 * application server; each pooled session is named after its backend pid ({@code
 * racelab:pool-4711}) and serves one worker at a time, for as long as the worker holds a {@link
 * Lease} on it. The worker script decides which statement runs on which lease, so a lock taken on
 * one lease and an unlock sent on another, the classic pooling mistake, happens when a lab wants it.
 *
 * <p><b>Who uses what.</b> A dedicated session belongs to its worker until the worker closes it; a
 * pooled one to the worker holding a lease on it, and to nobody between leases. The run's
 * {@link SessionBook} keeps this, and answers it for the lock observer: a lock held by a session no worker uses is a lock nobody is
 * going to release. A lab whose workers take an advisory lock on one pooled session and go on
 * without it (the article's pooled lock, or a lock taken many times over) says which locks each
 * worker believes it holds ({@link Session#believes}); for those keys the believers, not the
 * session's current user, are the holders, and a lock nobody believes in is the orphan.
 *
 * <p><b>Ending.</b> Every session opened (pooled ones included, which come from this class's own
 * data source) is remembered by backend pid. {@link #close} closes what is still open, then waits
 * until each pid has left {@code pg_stat_activity} and terminates any that linger ({@link
 * SessionsLeaving}), so an ended run leaves no session and no lock behind; while an exploration
 * keeps sessions for its next schedule ({@link SessionKeeper}), those it kept, reset, stay.
 */
public final class PgSessions implements AutoCloseable {

    /**
     * How a run's workers reach the server, and the isolation level their sessions start with.
     *
     * @param dedicatedUpTo with at most this many workers each has its own session; with more they share the pool
     * @param poolSize      sessions in the pool, when there is one
     * @param isolation     a {@link Connection} isolation constant set once as each session opens,
     *                      or {@link #SERVER_DEFAULT}
     */
    public record Mode(int dedicatedUpTo, int poolSize, int isolation) {

        /** The isolation level the server gives new sessions; RaceLab sets none. */
        public static final int SERVER_DEFAULT = -1;

        public Mode {
            if (dedicatedUpTo < 0 || (dedicatedUpTo < Integer.MAX_VALUE && poolSize < 1)) {
                throw new IllegalArgumentException("a mode that may pool needs a pool of at least one session: "
                        + dedicatedUpTo + " / " + poolSize);
            }
        }

        /** Each worker has a session of its own for the whole run. */
        public static Mode dedicated() {
            return new Mode(Integer.MAX_VALUE, 0, SERVER_DEFAULT);
        }

        /** The workers share {@code size} sessions, each lent to one worker per {@link Lease}. */
        public static Mode pooled(int size) {
            return new Mode(0, size, SERVER_DEFAULT);
        }

        /** Dedicated sessions for up to {@code workers} workers; with more, a pool of {@code poolSize}. */
        public static Mode dedicatedUpTo(int workers, int poolSize) {
            return new Mode(workers, poolSize, SERVER_DEFAULT);
        }

        /**
         * The same mode, with every session set to {@code level} (a {@link Connection} constant) once,
         * when it opens. Setting it around each transaction instead costs a statement each time:
         * pgjdbc sends {@code SET SESSION CHARACTERISTICS …} on every call.
         */
        public Mode withIsolation(int level) {
            return new Mode(dedicatedUpTo, poolSize, level);
        }

        /** Whether a run of {@code workers} workers shares a pool. */
        public boolean pools(int workers) {
            return workers > dedicatedUpTo;
        }
    }

    private static final Executor ABORT_NOW = Runnable::run;
    private static final String POOLED = "pool";
    /** When this session's backend started, read from its own entry (one row, not the whole of pg_stat_activity). */
    private static final String STARTED = "(SELECT " + SessionsLeaving.STARTED
            + " FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()))";
    /** Names a pool's session and says when its backend started: with the pid, who it is. */
    private static final String NAME_POOLED = "SELECT pg_catalog.set_config('application_name', ?, false), " + STARTED;
    private static final String STARTED_ONLY = "SELECT " + STARTED;

    private final Postgres postgres;
    private final Mode mode;
    /** Null unless the mode pools for this run's workers. */
    private final HikariDataSource pool;
    /** Who uses each session, who believes they hold which advisory lock, who asks for one. */
    private final SessionBook book = new SessionBook();
    /**
     * When each session's backend started, by pid: a pid the server gives again to a later
     * session (someone else's, maybe) is not this run's, and is never waited for or ended.
     */
    private final Map<Integer, Long> started = new ConcurrentHashMap<>();
    private final Set<Session> open = ConcurrentHashMap.newKeySet();
    /** Where the pool's threads come from, and the one that shuts an abandoned pool. */
    private final ThreadFactory threads;

    /**
     * Opens the pool, if {@code mode} pools for {@code workers} workers; dedicated sessions open
     * with their workers.
     *
     * @param threads where the pool's own threads (housekeeping, opening and closing sessions) come from
     */
    public PgSessions(Postgres postgres, String runId, int workers, Mode mode, ThreadFactory threads) {
        this.postgres = postgres;
        this.mode = mode;
        this.threads = threads;
        this.pool = mode.pools(workers) ? SessionPool.open(runId, mode.poolSize(), new PooledSessions(), threads) : null;
    }

    /**
     * Whether {@code worker} waits for the pool because every session of the pool is lent: a wait
     * on the workers holding them. One that waits while the pool is still opening its sessions
     * waits on nobody, and is on its way.
     */
    boolean awaitsPool(String worker) {
        if (pool == null || !book.awaitsPool(worker)) {
            return false;
        }
        var sessions = pool.getHikariPoolMXBean();
        return sessions != null && sessions.getTotalConnections() >= mode.poolSize() && sessions.getIdleConnections() == 0;
    }

    /** The sessions read through: each answer is as of the moment it is asked. */
    public SessionBook.View live() {
        return book.live();
    }

    /** The sessions as they are now, kept ({@link SessionBook#view}). */
    public SessionBook.View view() {
        return book.view();
    }

    /**
     * Opens worker {@code context}'s way to the server: its own session now (dedicated), or its
     * access to the pool. The worker closes it; {@link #close} closes any left open.
     */
    public Session session(WorkerContext context) throws SQLException {
        Session session = pool == null ? new Session(context, open(context.name())) : new Session(context, null);
        open.add(session);
        return session;
    }

    /**
     * Opens a session named {@code racelab:<worker>}, or for the pool (a null worker) {@code
     * racelab:pool-<pid>}, and gives it the mode's isolation level: the one place a session of
     * this run begins.
     */
    private Connection open(String worker) throws SQLException {
        // A pool's sessions are its own to open and close: never kept between runs (SessionKeeper).
        Connection connection = worker == null ? postgres.connectUnkept(POOLED) : postgres.connect(worker);
        try {
            int pid = pidOf(connection);
            String name = worker == null ? POOLED + "-" + pid : worker;
            try (PreparedStatement who = connection.prepareStatement(worker == null ? NAME_POOLED : STARTED_ONLY)) {
                if (worker == null) {
                    who.setString(1, Postgres.APP_PREFIX + name);
                }
                try (ResultSet rs = who.executeQuery()) {
                    if (rs.next()) {
                        long since = rs.getLong(worker == null ? 2 : 1);
                        // Unknown when the server does not say: such a session is closed as usual,
                        // and never waited for or ended by its pid alone.
                        if (!rs.wasNull()) {
                            started.put(pid, since);
                        }
                    }
                }
            }
            book.named(pid, name);
            if (mode.isolation() != Mode.SERVER_DEFAULT) {
                connection.setTransactionIsolation(mode.isolation());
            }
            return connection;
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
    }

    private static int pidOf(Connection connection) throws SQLException {
        return connection.unwrap(PGConnection.class).getBackendPID();
    }

    /**
     * One worker's way to the server. Used by the worker's own thread, except {@link #abort},
     * which the run calls from its supervisor.
     */
    public final class Session implements AutoCloseable {

        private final WorkerContext context;
        /** Dedicated: the worker's session, lent by every {@link #borrow} and closed with this. */
        private final Lease own;
        /** Pooled: the leases the worker holds now, for {@link #abort}. */
        private final Set<Lease> leases = ConcurrentHashMap.newKeySet();

        private Session(WorkerContext context, Connection dedicated) throws SQLException {
            this.context = context;
            if (dedicated == null) {
                this.own = null;
            } else {
                int pid = pidOf(dedicated);
                this.own = new Lease(this, dedicated, pid, false);
                book.uses(pid, context.name());
                context.mark(EventKind.CONNECTED, context.name(), pid);
            }
        }

        /**
         * A connection for the worker to use until it closes the lease. Dedicated: always the
         * worker's own session, which closing the lease leaves open. Pooled: a session from the
         * pool, waiting up to 30 s for one; closing the lease rolls back what it left uncommitted
         * and returns it to the pool, with whatever session state (an advisory lock, say) the
         * worker left in it. A worker may hold several leases at once.
         */
        public Lease borrow() throws SQLException {
            if (own != null) {
                return own;
            }
            // Waiting for the pool is waiting on the sessions' holders: a scheduled run asks (PgWaits).
            book.awaitsPool(context.name(), true);
            Connection connection;
            try {
                connection = pool.getConnection();
            } finally {
                book.awaitsPool(context.name(), false);
            }
            int pid = pidOf(connection);
            Lease lease = new Lease(this, connection, pid, true);
            leases.add(lease);
            book.uses(pid, context.name());
            context.mark(EventKind.CONNECTED, book.live().nameOf(pid), pid);
            return lease;
        }

        /**
         * What this worker believes of advisory lock {@code key} from now on: that it holds it
         * {@code times} times (0: not at all), at transaction or session level, in the session
         * with backend {@code pid}, where the server granted it. A lab that keeps count says so
         * after each lock call the server granted and each unlock it sent, so the lock observer
         * and the oracle can tell a lock some worker believes it holds from one that nobody will
         * ever unlock.
         */
        public void believes(AdvisoryKey key, int pid, int times, boolean transactionLevel) {
            book.believes(context.name(), key, pid, times, transactionLevel);
        }

        /**
         * Says that the lab keeps count of who believes they hold advisory lock {@code key} (see
         * {@link #believes}), before any worker has taken it: from the first grant on, a session
         * holding it is the believers', never simply its borrower's.
         */
        public void tracks(AdvisoryKey key) {
            book.tracks(key);
        }

        /**
         * Says that this worker's lock call for {@code key} is in flight on the session with
         * backend {@code pid} (a null key: none is). The server may grant the lock before the call
         * returns and the worker {@linkplain #believes believes} in it; meanwhile the lock is the
         * asker's, not an orphan.
         */
        public void asks(AdvisoryKey key, int pid) {
            book.asks(context.name(), key, pid);
        }

        /**
         * Whether the pool has no session to lend right now, so that {@link #borrow} would wait for
         * one to come back; false for a dedicated session. A moment's answer, for showing a wait on
         * the worker's lane, never for deciding anything.
         */
        public boolean poolExhausted() {
            return own == null && pool.getHikariPoolMXBean() != null
                    && pool.getHikariPoolMXBean().getIdleConnections() == 0;
        }

        /** Cuts the connections in use, from any thread, so a worker blocked on the server returns. */
        public void abort() {
            if (own != null) {
                abort(own.connection);
            }
            leases.forEach(lease -> abort(lease.connection));
        }

        private static void abort(Connection connection) {
            try {
                connection.abort(ABORT_NOW);
            } catch (SQLException ignored) {
                // Already closed.
            }
        }

        /** Closes the worker's own session, or returns any leases it still holds. */
        @Override
        public void close() throws SQLException {
            open.remove(this);
            try {
                for (Lease lease : List.copyOf(leases)) {
                    lease.close();
                }
            } finally {
                if (own != null) {
                    book.gaveBack(own.pid, context.name());
                    own.connection.close();
                }
            }
        }
    }

    /** A connection lent to one worker until it closes the lease; owned by that worker's thread. */
    public final class Lease implements AutoCloseable {

        private final Session session;
        private final Connection connection;
        private final int pid;
        private final boolean returns;
        private boolean closed;

        private Lease(Session session, Connection connection, int pid, boolean returns) {
            this.session = session;
            this.connection = connection;
            this.pid = pid;
            this.returns = returns;
        }

        public Connection connection() {
            return connection;
        }

        /** The backend pid of the session behind this lease. */
        public int pid() {
            return pid;
        }

        /** Returns a pooled connection to the pool (nobody uses it from now on); leaves a dedicated one open. */
        @Override
        public void close() throws SQLException {
            if (!returns || closed) {
                return;
            }
            closed = true;
            session.leases.remove(this);
            book.gaveBack(pid, session.context.name());
            connection.close();
        }
    }

    /** Closes what is still open and the pool, and makes sure every session of this run is gone from the server. */
    @Override
    public void close() throws SQLException {
        for (Session session : List.copyOf(open)) {
            try {
                session.close();
            } catch (SQLException ignored) {
                // An aborted connection fails to close cleanly; whatever is left is terminated below.
            }
        }
        if (pool != null) {
            pool.close();
        }
        // Taken once: a session kept now may be lent to the next run while this one waits.
        Map<Integer, Long> leaving = gone();
        if (!leaving.isEmpty()) {
            SessionsLeaving.await(postgres, leaving);
        }
    }

    /**
     * Cuts every connection of the run and shuts the pool, asking the server nothing: for a server
     * that stopped answering, where a clean close would only wait on it.
     */
    public void abandon() {
        for (Session session : List.copyOf(open)) {
            session.abort();
            open.remove(session);
        }
        if (pool != null) {
            // Hikari's close waits for a session it is still opening, a login to the silent server,
            // as long as its login timeout (30 s): it shuts on a thread of its own, out of the way
            // of the run's end (the connections it lent are cut above; its idle ones go with it).
            Thread closer = threads.newThread(pool::close);
            closer.setDaemon(true);
            closer.start();
        }
    }

    /**
     * The sessions this run opened that must leave the server, each pid with when its backend
     * started: all but those kept for the next run.
     */
    private Map<Integer, Long> gone() {
        Map<Integer, Long> pids = new HashMap<>(started);
        pids.keySet().removeAll(postgres.keptPids());
        return pids;
    }

    /**
     * Where the pool gets its sessions: opened like every other session of the run, so each is
     * named, remembered and given the mode's isolation level before Hikari lends it out.
     */
    private final class PooledSessions implements DataSource {

        private volatile int loginTimeout;

        @Override
        public Connection getConnection() throws SQLException {
            return open(null);
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLFeatureNotSupportedException("the pool's sessions log in as the server's address says");
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
            // Nothing to log: failures reach the worker that asked for a session.
        }

        @Override
        public void setLoginTimeout(int seconds) {
            loginTimeout = seconds;  // Postgres.connect has its own connect timeout.
        }

        @Override
        public int getLoginTimeout() {
            return loginTimeout;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            if (type.isInstance(this)) {
                return type.cast(this);
            }
            throw new SQLException("not a " + type.getName());
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return type.isInstance(this);
        }
    }
}
