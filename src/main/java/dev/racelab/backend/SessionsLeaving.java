package dev.racelab.backend;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Makes sure a run's closed sessions have left the server: waits until their backends are gone
 * from {@code pg_stat_activity}, terminates those still there halfway through, and fails if any is
 * left at the end ({@link PgSessions#close}). Only RaceLab's own sessions ({@code racelab:…}) are
 * looked at or ended.
 */
final class SessionsLeaving {

    private static final long LINGER_MILLIS = 3_000;

    private SessionsLeaving() {
    }

    /** Waits until none of {@code pids} is on the server, ending those that linger. */
    static void await(Postgres postgres, Set<Integer> pids) throws SQLException {
        try (Connection admin = postgres.control("cleanup")) {
            long deadline = System.nanoTime() + LINGER_MILLIS * 1_000_000;
            boolean terminated = false;
            while (true) {
                Integer[] alive = alive(admin, pids);
                if (alive.length == 0) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new SQLException(alive.length + " sessions of this run would not end");
                }
                if (!terminated && System.nanoTime() > deadline - LINGER_MILLIS * 1_000_000 / 2) {
                    terminate(admin, alive);
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

    private static Integer[] alive(Connection admin, Set<Integer> pids) throws SQLException {
        Array array = admin.createArrayOf("int4", pids.toArray());
        try (PreparedStatement query = admin.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE pid = ANY(?) AND application_name LIKE 'racelab:%'")) {
            query.setArray(1, array);
            try (ResultSet rs = query.executeQuery()) {
                List<Integer> alive = new ArrayList<>();
                while (rs.next()) {
                    alive.add(rs.getInt(1));
                }
                return alive.toArray(Integer[]::new);
            }
        }
    }

    private static void terminate(Connection admin, Integer[] pids) throws SQLException {
        try (PreparedStatement kill = admin.prepareStatement(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY(?) "
                        + "AND application_name LIKE 'racelab:%'")) {
            kill.setArray(1, admin.createArrayOf("int4", pids));
            kill.executeQuery().close();
        }
    }
}
