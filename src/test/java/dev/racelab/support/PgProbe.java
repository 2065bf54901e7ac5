package dev.racelab.support;

import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Asks PostgreSQL itself what a run's sessions hold and wait for. */
public final class PgProbe implements AutoCloseable {

    private final Connection connection;

    public PgProbe() throws SQLException {
        this.connection = TestServers.connect();
    }

    /**
     * How many workers of a child RaceLab have a session on its embedded PostgreSQL, whose pid file
     * is {@code pidFile} (its port is there); 0 until that server is ready.
     */
    public static int workersOnEmbedded(Path pidFile) {
        try {
            List<String> lines = Files.readAllLines(pidFile);
            if (lines.size() < 8 || !lines.get(7).strip().equals("ready")) {
                return 0;
            }
            String url = "jdbc:postgresql://127.0.0.1:" + lines.get(3).strip() + "/postgres?user=postgres";
            try (Connection c = DriverManager.getConnection(url);
                 ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM pg_stat_activity "
                         + "WHERE application_name LIKE 'racelab:client-%'")) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (Exception notYet) {
            return 0;
        }
    }

    /** The backend pids a run's workers connected with, from its CONNECTED events. */
    public static Set<Integer> pidsOf(Run run) {
        Set<Integer> pids = new TreeSet<>();
        for (Event event : run.recorder().snapshot()) {
            if (event.kind() == EventKind.CONNECTED) {
                pids.add((int) event.value());
            }
        }
        return pids;
    }

    /** application_name of every backend waiting for a lock that is not granted. */
    public List<String> waitingSessions() throws SQLException {
        return names("SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                + "WHERE NOT l.granted AND a.application_name LIKE 'racelab:%' ORDER BY 1", null);
    }

    /** application_name of each of {@code pids} that waits for a lock not granted. */
    public List<String> waitingAmong(Set<Integer> pids) throws SQLException {
        return names("SELECT DISTINCT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                + "WHERE NOT l.granted AND l.pid = ANY(?) ORDER BY 1", pids);
    }

    /** Ends the sessions of {@code pids} (pg_terminate_backend), as an administrator or a crash would. */
    public void terminate(Set<Integer> pids) throws SQLException {
        names("SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE pid = ANY(?)", pids);
    }

    /** The pids among {@code pids} that still have a session. */
    public List<String> sessionsAlive(Set<Integer> pids) throws SQLException {
        return names("SELECT pid || ' ' || application_name FROM pg_stat_activity WHERE pid = ANY(?)", pids);
    }

    /** Locks held or awaited by any of {@code pids}. */
    public List<String> locksOf(Set<Integer> pids) throws SQLException {
        return names("SELECT pid || ' ' || locktype || ' ' || mode FROM pg_locks WHERE pid = ANY(?)", pids);
    }

    /**
     * The advisory locks of {@code pids}, one a line, as {@code racelab:pool-4711 idle 42 granted}:
     * the session's name, its state in {@code pg_stat_activity} ("idle": no statement, no
     * transaction), the key as the lab wrote it ({@code 42}, or {@code (1, 42)} for two keys), and
     * whether it holds the lock or waits for it.
     */
    public List<String> advisoryLocksOf(Set<Integer> pids) throws SQLException {
        return names("""
                SELECT a.application_name || ' ' || a.state || ' '
                       || CASE WHEN l.objsubid = 2
                               THEN '(' || (l.classid::bigint - CASE WHEN l.classid::bigint >= 2147483648
                                                                     THEN 4294967296 ELSE 0 END)
                                    || ', ' || (l.objid::bigint - CASE WHEN l.objid::bigint >= 2147483648
                                                                      THEN 4294967296 ELSE 0 END) || ')'
                               ELSE ((l.classid::bigint << 32) | l.objid::bigint)::text END
                       || CASE WHEN l.granted THEN ' granted' ELSE ' waiting' END
                FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.pid = ANY(?) ORDER BY 1
                """, pids);
    }

    private List<String> names(String sql, Set<Integer> pids) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            if (pids != null) {
                Array array = connection.createArrayOf("int4", pids.toArray());
                ps.setArray(1, array);
            }
            List<String> names = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            return names;
        }
    }

    /** How many RaceLab sessions have an application_name starting {@code racelab:<prefix>}. */
    public int sessionsNamed(String prefix) throws SQLException {
        return names("SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'racelab:"
                + prefix.replace("'", "''") + "%'", null).size();
    }

    /** {@link #sessionsNamed}, of the sessions from these client ports only (a relay's: {@code CuttableProxy.upstreamPorts}). */
    public int sessionsNamed(String prefix, Set<Integer> clientPorts) throws SQLException {
        return names("SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'racelab:"
                + prefix.replace("'", "''") + "%' AND client_port = ANY(?)", clientPorts).size();
    }

    /**
     * {@link #sessionsNamed}, through these client ports, whose latest statement began with
     * {@code statement}: the workers that have done that much work (a session's {@code query}
     * column keeps its last statement once it is idle).
     */
    public int sessionsThatRan(String prefix, String statement, Set<Integer> clientPorts) throws SQLException {
        return names("SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'racelab:"
                + prefix.replace("'", "''") + "%' AND client_port = ANY(?) AND query LIKE '"
                + statement.replace("'", "''") + "%'", clientPorts).size();
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
