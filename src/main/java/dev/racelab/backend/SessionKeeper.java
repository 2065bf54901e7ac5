package dev.racelab.backend;

import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps PostgreSQL sessions between runs while many short runs follow each other (an exploration's
 * schedules), so that each run does not pay for opening its sessions, warming a new backend's
 * caches and waiting for the old ones to leave. A session a run closes comes back here instead,
 * if it is idle (no transaction open, autocommit on), and is reset first: its settings back to the
 * server's (the isolation level a lab set included) and any session-level advisory lock released,
 * so the next run finds it as a fresh one, under the same name. A session a run aborted, or one
 * that failed, is closed for real. Off, as it is unless {@link Postgres#keepSessions} turned it
 * on, it keeps nothing.
 *
 * <p>Thread-safe.
 */
final class SessionKeeper {

    /**
     * Resets what a run may leave in a session: what {@code DISCARD ALL} does but forget the
     * prepared statements and their plans, which the driver knows and uses again.
     */
    private static final String RESET = "CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; "
            + "SELECT pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES";
    /** How long a reset, or the check of a kept session before it is lent, may take. */
    private static final int CHECK_MILLIS = 2_000;
    private static final int MOST_PER_NAME = 8;

    /** Opens a real session for a key. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    private final Map<String, Deque<Connection>> idle = new HashMap<>();
    private final Set<Integer> idlePids = new HashSet<>();
    private boolean keeping;

    synchronized void keep(boolean on) {
        keeping = on;
        if (!on) {
            closeIdle();
        }
    }

    /** The backend pids of the sessions kept idle now: they are meant to be there. */
    synchronized Set<Integer> idlePids() {
        return Set.copyOf(idlePids);
    }

    /** A session for {@code key}: a kept one if there is one, else a new one from {@code opener}. */
    Connection lend(String key, Opener opener) throws SQLException {
        Connection kept;
        // Nothing that may wait on the server is done holding the lock: a login to a silent server
        // must not hold up whoever asks which sessions are kept.
        synchronized (this) {
            if (!keeping) {
                kept = null;
            } else {
                Deque<Connection> queue = idle.get(key);
                kept = queue == null ? null : queue.pollFirst();
                if (kept != null) {
                    idlePids.remove(pid(kept));
                }
            }
        }
        if (!keeping() && kept == null) {
            return opener.open();
        }
        // A session the server ended while it sat here (a restart, a timeout) is not lent.
        if (kept != null && !kept.isValid(CHECK_MILLIS / 1_000)) {
            kept.abort(Runnable::run);
            kept = null;
        }
        Connection real = kept != null ? kept : opener.open();
        return wrap(key, real, real.getNetworkTimeout());
    }

    /**
     * Takes {@code real} back if it can serve again, reset, with the network timeout it was lent
     * with (a pool sets its own when it closes one); else closes it. The reset may take at most
     * {@link #CHECK_MILLIS}: a server that stopped answering does not hold up the run's end.
     */
    private void giveBack(String key, Connection real, int networkTimeout) {
        try {
            if (!keeping() || real.isClosed() || !real.getAutoCommit()
                    || real.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE) {
                real.close();
                return;
            }
            real.setNetworkTimeout(Runnable::run, CHECK_MILLIS);
            try (Statement reset = real.createStatement()) {
                reset.execute(RESET);
            }
            real.setNetworkTimeout(Runnable::run, networkTimeout);
            synchronized (this) {
                Deque<Connection> queue = idle.computeIfAbsent(key, k -> new ArrayDeque<>());
                if (keeping && queue.size() < MOST_PER_NAME) {
                    queue.addLast(real);
                    idlePids.add(pid(real));
                    return;
                }
            }
            real.close();
        } catch (SQLException | RuntimeException e) {
            try {
                real.abort(Runnable::run);
            } catch (SQLException ignored) {
                // Gone already: nothing is kept of it.
            }
        }
    }

    private synchronized boolean keeping() {
        return keeping;
    }

    private void closeIdle() {
        for (Deque<Connection> queue : idle.values()) {
            for (Connection c : queue) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // Closing what nobody uses: a failure leaves nothing to do.
                }
            }
        }
        idle.clear();
        idlePids.clear();
    }

    private static int pid(Connection real) {
        try {
            return real.unwrap(PGConnection.class).getBackendPID();
        } catch (SQLException e) {
            return -1;
        }
    }

    /** The session as its user sees it: closing it gives it back here; aborting it ends it. */
    private Connection wrap(String key, Connection real, int networkTimeout) {
        // Not synchronized: a worker blocked in a statement must not keep the run from aborting it.
        AtomicBoolean closed = new AtomicBoolean();
        InvocationHandler handler = new InvocationHandler() {
            @Override
            public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
                switch (method.getName()) {
                    case "close" -> {
                        if (closed.compareAndSet(false, true)) {
                            giveBack(key, real, networkTimeout);
                        }
                        return null;
                    }
                    case "isClosed" -> {
                        return closed.get() || real.isClosed();
                    }
                    case "abort" -> {
                        closed.set(true);
                        return call(real, method, args);
                    }
                    case "equals" -> {
                        return proxy == args[0];
                    }
                    case "hashCode" -> {
                        return System.identityHashCode(proxy);
                    }
                    case "toString" -> {
                        return "kept " + real;
                    }
                    default -> {
                        if (closed.get()) {
                            throw new SQLException("This connection has been closed.", "08003");
                        }
                        return call(real, method, args);
                    }
                }
            }
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                handler);
    }

    private static Object call(Connection real, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
