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
    private Connection session;
    private volatile boolean closed;

    public PgWaits(Postgres postgres, PgSessions sessions) {
        this.postgres = postgres;
        this.sessions = sessions;
    }

    /** Of {@code workers} (by name), those whose session waits for a lock another session holds. */
    public synchronized Set<String> waiting(Collection<String> workers) throws SQLException {
        Map<Integer, String> used = sessions.live().usedBy(workers);
        if (used.isEmpty() || closed) {
            return Set.of();
        }
        if (session == null) {
            session = postgres.control("schedule");
        }
        Set<String> waiting = new HashSet<>();
        try (PreparedStatement ps = session.prepareStatement(BLOCKED)) {
            Array pids = session.createArrayOf("int4", used.keySet().toArray());
            ps.setArray(1, pids);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    waiting.add(used.get(rs.getInt(1)));
                }
            }
        }
        return waiting;
    }

    @Override
    public void close() throws SQLException {
        closed = true;
        Connection open;
        synchronized (this) {
            open = session;
            session = null;
        }
        if (open != null) {
            open.close();
        }
    }
}
