package dev.racelab.backend;

import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * PostgreSQL's own account of the run's locks, on one server lane: which of the run's sessions
 * wait (a lock in {@code pg_locks} not granted) and for whom ({@code pg_blocking_pids}), and which
 * hold a lock someone waits for, or hold a protected row ({@code xmax} of the row is the xid of
 * their open transaction). Sessions map to workers through {@link PgClients}.
 *
 * <p>It records only changes: per worker, a {@code SERVER_HOLDS} or {@code SERVER_WAITS} event
 * when what it holds or waits for changes, with a null subject when that ends. Waiters are polled
 * in the order they began waiting ({@code state_change}).
 */
public final class PgLockObserver implements ServerObserver {

    /** A row whose lock holder is worth naming: {@code xmaxQuery} returns its xmax as bigint. */
    public record ProtectedRow(String label, String xmaxQuery, String runId) {
    }

    private static final String WAITS = """
            SELECT a.pid, l.locktype, l.mode, pg_blocking_pids(a.pid)
            FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
            WHERE a.pid = ANY(?)
            ORDER BY a.state_change, a.pid
            """;
    private static final String XIDS = """
            SELECT pid, backend_xid::text::bigint FROM pg_stat_activity
            WHERE pid = ANY(?) AND backend_xid IS NOT NULL
            """;

    private final Postgres postgres;
    private final PgClients clients;
    private final List<ProtectedRow> rows;
    private final Map<String, String> holding = new HashMap<>();
    private final Map<String, String> waiting = new HashMap<>();
    private Connection connection;

    public PgLockObserver(Postgres postgres, PgClients clients, List<ProtectedRow> rows) {
        this.postgres = postgres;
        this.clients = clients;
        this.rows = List.copyOf(rows);
    }

    @Override
    public List<String> lanes() {
        return List.of("PostgreSQL locks");
    }

    @Override
    public void poll(LaneSink sink) throws SQLException {
        if (connection == null) {
            connection = postgres.connect("observer");
        }
        Integer[] pids = clients.pids().toArray(Integer[]::new);
        if (pids.length == 0) {
            return;
        }
        Array array = connection.createArrayOf("int4", pids);
        Map<String, String> waitsNow = new LinkedHashMap<>();
        Map<String, String> holdsNow = new LinkedHashMap<>();
        List<Waiter> waiters = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(WAITS)) {
            ps.setArray(1, array);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    waiters.add(new Waiter(rs.getInt(1), describe(rs.getString(2), rs.getString(3)),
                            (Integer[]) rs.getArray(4).getArray()));
                }
            }
        }
        // pg_blocking_pids names the holders and also the sessions queued ahead; only those not
        // waiting themselves hold the lock.
        Set<Integer> waitingPids = new HashSet<>();
        waiters.forEach(w -> waitingPids.add(w.pid));
        for (Waiter w : waiters) {
            List<String> holders = new ArrayList<>();
            for (Integer blocker : w.blockers) {
                if (!waitingPids.contains(blocker)) {
                    String name = clients.userOf(blocker);
                    holders.add(name != null ? name : "pid " + blocker);
                    if (name != null) {
                        holdsNow.putIfAbsent(name, "a " + w.lock);
                    }
                }
            }
            String who = clients.userOf(w.pid);
            if (who != null && !waitsNow.containsKey(who)) {
                waitsNow.put(who, (holders.isEmpty() ? "in line" : "for " + String.join(", ", holders))
                        + " (" + w.lock + ")");
            }
        }
        if (!rows.isEmpty()) {
            rowHolders(array, holdsNow);
        }
        report(sink, EventKind.SERVER_WAITS, waiting, waitsNow);
        report(sink, EventKind.SERVER_HOLDS, holding, holdsNow);
    }

    /** Names the sessions whose open transaction is the xmax of a protected row: they hold its lock. */
    private void rowHolders(Array pids, Map<String, String> holdsNow) throws SQLException {
        Map<Long, Integer> pidOfXid = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(XIDS)) {
            ps.setArray(1, pids);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pidOfXid.put(rs.getLong(2), rs.getInt(1));
                }
            }
        }
        if (pidOfXid.isEmpty()) {
            return;
        }
        for (ProtectedRow row : rows) {
            try (PreparedStatement ps = connection.prepareStatement(row.xmaxQuery())) {
                ps.setString(1, row.runId());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        Integer pid = pidOfXid.get(rs.getLong(1));
                        String who = pid == null ? null : clients.userOf(pid);
                        if (who != null) {
                            holdsNow.put(who, row.label());
                        }
                    }
                }
            }
        }
    }

    private static void report(LaneSink sink, EventKind kind, Map<String, String> before, Map<String, String> now) {
        for (Map.Entry<String, String> entry : now.entrySet()) {
            if (!Objects.equals(before.get(entry.getKey()), entry.getValue())) {
                record(sink, kind, entry.getKey(), entry.getValue());
            }
        }
        for (String gone : before.keySet()) {
            if (!now.containsKey(gone)) {
                record(sink, kind, gone, null);
            }
        }
        before.clear();
        before.putAll(now);
    }

    private static void record(LaneSink sink, EventKind kind, String worker, String subject) {
        int actor = sink.workerActor(worker);
        if (actor >= 0) {
            sink.record(0, kind, subject, actor);
        }
    }

    private record Waiter(int pid, String lock, Integer[] blockers) {
    }

    private static String describe(String locktype, String mode) {
        return switch (locktype) {
            case "transactionid", "tuple" -> "row lock";
            case "advisory" -> "advisory lock";
            case "relation" -> "table lock (" + mode + ")";
            default -> locktype + " lock (" + mode + ")";
        };
    }

    @Override
    public void close() throws SQLException {
        if (connection != null) {
            connection.close();
        }
    }
}
