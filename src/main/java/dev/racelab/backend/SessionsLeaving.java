package dev.racelab.backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Makes sure a run's closed sessions have left the server: waits until their backends are gone
 * from {@code pg_stat_activity}, terminates those still there halfway through, and fails if any is
 * left at the end ({@link PgSessions#close}). A session is known by its pid and when its backend
 * started: the server gives a pid again once its session ended, and a later session with it
 * (another run's, another user's) is neither waited for nor ended. Only RaceLab's own sessions
 * ({@code racelab:…}) are looked at or ended.
 */
final class SessionsLeaving {

    /** When a backend started, in microseconds since the epoch: exact, and the same whatever the session's time zone. */
    static final String STARTED_LABEL = "backend_started";
    static final String STARTED = "(extract(epoch FROM backend_start) * 1000000)::bigint AS " + STARTED_LABEL;

    private static final long LINGER_MILLIS = 3_000;
    private static final String OURS = "FROM pg_catalog.pg_stat_activity a "
            + "JOIN unnest(?::int4[], ?::int8[]) AS ours(pid, started) ON a.pid = ours.pid "
            + "AND (extract(epoch FROM a.backend_start) * 1000000)::bigint = ours.started "
            + "WHERE a.application_name LIKE 'racelab:%'";

    private SessionsLeaving() {
    }

    /** Waits until none of {@code sessions} (pid to when its backend started) is on the server, ending those that linger. */
    static void await(Postgres postgres, Map<Integer, Long> sessions) throws SQLException {
        try (Connection admin = postgres.control("cleanup")) {
            long deadline = System.nanoTime() + LINGER_MILLIS * 1_000_000;
            boolean terminated = false;
            while (true) {
                List<Integer> alive = alive(admin, sessions);
                if (alive.isEmpty()) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new SQLException(alive.size() + " sessions of this run would not end");
                }
                if (!terminated && System.nanoTime() > deadline - LINGER_MILLIS * 1_000_000 / 2) {
                    ask(admin, "SELECT a.pid, pg_catalog.pg_terminate_backend(a.pid) ", sessions);
                    terminated = true;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static List<Integer> alive(Connection admin, Map<Integer, Long> sessions) throws SQLException {
        return ask(admin, "SELECT a.pid ", sessions);
    }

    /** {@code select} over the backends of {@code sessions} still on the server; the first column of each row. */
    private static List<Integer> ask(Connection admin, String select, Map<Integer, Long> sessions) throws SQLException {
        Integer[] pids = sessions.keySet().toArray(Integer[]::new);
        Long[] started = new Long[pids.length];
        for (int i = 0; i < pids.length; i++) {
            started[i] = sessions.get(pids[i]);
        }
        try (PreparedStatement query = admin.prepareStatement(select + OURS)) {
            query.setArray(1, admin.createArrayOf("int4", pids));
            query.setArray(2, admin.createArrayOf("int8", started));
            try (ResultSet rs = query.executeQuery()) {
                List<Integer> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getInt(1));
                }
                return rows;
            }
        }
    }
}
