package dev.racelab.backend;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which of a run's workers PostgreSQL holds waiting for a lock, as the server's lock graph says
 * ({@code pg_blocking_pids}: a session is waiting while somebody blocks it, which stops being true
 * the moment the blocker lets go, before the waiter has even woken). Asked by a scheduled run after
 * each passage, on a session of its own, opened on first use.
 *
 * <p>Threads: one caller at a time (the run's schedule thread); {@link #close} from the run's supervisor.
 */
public final class PgWaits implements AutoCloseable {

    private static final String BLOCKED =
            "SELECT pid FROM unnest(?::int4[]) AS pid WHERE cardinality(pg_blocking_pids(pid)) > 0";

    private final Postgres postgres;
    private final PgSessions sessions;
    /** Opened on first use; read without the lock by {@link #abort}, which must not wait for a query. */
    private volatile Connection session;
    private volatile boolean closed;

    public PgWaits(Postgres postgres, PgSessions sessions) {
        this.postgres = postgres;
        this.sessions = sessions;
    }

    /**
     * Of {@code workers} (by name), those whose session waits for a lock another session holds, and
     * those waiting for the run's pool to lend them a session (all lent, to workers that hold them).
     */
    public synchronized Set<String> waiting(Collection<String> workers) throws SQLException {
        Set<String> waiting = new HashSet<>();
        for (String worker : workers) {
            if (sessions.awaitsPool(worker)) {
                waiting.add(worker);
            }
        }
        Map<Integer, String> used = sessions.live().usedBy(workers);
        if (used.isEmpty() || closed) {
            return waiting;
        }
        Connection asking = session;
        if (asking == null) {
            asking = postgres.control("schedule");
            session = asking;
        }
        try (PreparedStatement ps = asking.prepareStatement(BLOCKED)) {
            Array pids = asking.createArrayOf("int4", used.keySet().toArray());
            ps.setArray(1, pids);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    waiting.add(used.get(rs.getInt(1)));
                }
            }
        }
        return waiting;
    }

    /** Cuts its session, asking the server nothing: for a server that stopped answering. */
    public void abort() throws SQLException {
        Connection open = end();
        if (open != null) {
            open.abort(Runnable::run);
        }
    }

    @Override
    public void close() throws SQLException {
        Connection open = end();
        if (open != null) {
            open.close();
        }
    }

    /** Asks nothing more; the session it had, to end, or null. */
    private Connection end() {
        closed = true;
        Connection open = session;
        session = null;
        return open;
    }
}
