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
 * wait (a lock in {@code pg_locks} not granted) and for whom ({@code pg_blocking_pids}); which hold
 * a lock someone waits for, hold a protected row ({@code xmax} of the row is the xid of their open
 * transaction), or hold an advisory lock, waited for or not. Sessions map to workers through
 * {@link PgSessions}.
 *
 * <p>An advisory lock held by a session no worker uses now (a pooled session back in the pool) is
 * an <em>orphan</em>: nobody is going to unlock it. Orphans are reported together, in one {@code
 * SERVER_ORPHANS} event on the lane naming each session and key, counted in its value. For a key
 * whose believers the lab keeps ({@link SessionBook.View#tracked}), the workers that believe they hold it
 * in the session that has it are its holders, whoever borrows that session now ("advisory lock 42
 * in pool-4711, session level"); a worker whose lock call for it is still in flight on that session
 * has it "granted just now"; and the lock is an orphan when none of these holds for two reads
 * running.
 *
 * <p>It records only changes: per worker, a {@code SERVER_HOLDS} or {@code SERVER_WAITS} event
 * when what it holds or waits for changes, with a null subject when that ends; a {@code
 * SERVER_ORPHANS} event when the orphans change, with a null subject when none are left. Waiters
 * are polled in the order they began waiting ({@code state_change}).
 */
public final class PgLockObserver implements ServerObserver {

    /** A row whose lock holder is worth naming: {@code xmaxQuery} (one parameter, the run id) returns its xmax as bigint. */
    public record ProtectedRow(String label, String xmaxQuery) {
    }

    /**
     * The locks of the run's sessions worth showing: every lock not granted, with who is in its
     * way, and every advisory lock granted. An advisory key is {@code classid}/{@code objid}: the
     * high and low halves of one bigint key ({@code objsubid} 1), or two int keys ({@code objsubid} 2).
     */
    private static final String LOCKS = """
            SELECT l.pid, l.granted, l.locktype, l.mode, l.classid::bigint, l.objid::bigint, l.objsubid,
                   CASE WHEN l.granted THEN NULL ELSE pg_blocking_pids(l.pid) END
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.pid = ANY(?) AND (NOT l.granted OR l.locktype = 'advisory')
            ORDER BY a.state_change, l.pid, l.classid, l.objid, l.objsubid
            """;
    private static final String XIDS = """
            SELECT pid, backend_xid::text::bigint FROM pg_stat_activity
            WHERE pid = ANY(?) AND backend_xid IS NOT NULL
            """;

    private final Postgres postgres;
    private final PgSessions sessions;
    private final String runId;
    private final List<ProtectedRow> rows;
    private final Map<String, String> holding = new HashMap<>();
    private final Map<String, String> waiting = new HashMap<>();
    /** Tracked locks the last read found held with nobody believing in them: orphans if the next read agrees. */
    private Set<Granted> unbelieved = Set.of();
    private String orphans;
    /** Opened by {@link #connect} or the first poll; cut by {@link #abort} from another thread. */
    private volatile Connection connection;

    public PgLockObserver(Postgres postgres, PgSessions sessions, String runId, List<ProtectedRow> rows) {
        this.postgres = postgres;
        this.sessions = sessions;
        this.runId = runId;
        this.rows = List.copyOf(rows);
    }

    @Override
    public List<String> lanes() {
        return List.of("PostgreSQL locks");
    }

    @Override
    public void connect() throws SQLException {
        if (connection == null) {
            connection = postgres.control("observer");
        }
    }

    @Override
    public void poll(LaneSink sink) throws SQLException {
        connect();
        // The run's sessions as of the read's start, the moment its answer is drawn from: asked
        // after the answer came back, they could name a worker that took a session's lock only
        // then, and the lane would draw it holding the lock before it did.
        SessionBook.View atRead = sessions.view();
        Integer[] pids = atRead.pids().toArray(Integer[]::new);
        if (pids.length == 0) {
            // No session of the run is open (before the workers connect, after they closed): none
            // holds or waits for anything, and what an earlier read saw ends here.
            report(sink, EventKind.SERVER_WAITS, waiting, Map.of());
            report(sink, EventKind.SERVER_HOLDS, holding, Map.of());
            reportOrphans(sink, null, 0);
            unbelieved = Set.of();
            return;
        }
        Array array = connection.createArrayOf("int4", pids);
        List<Row> seen = read(connection, array);
        List<Row> waiters = seen.stream().filter(r -> !r.granted).toList();

        // What each worker is known to hold: its advisory locks and protected rows, by name.
        Map<String, String> holdsNow = new LinkedHashMap<>();
        List<String> orphaned = new ArrayList<>();
        int orphanCount = 0;
        Set<Granted> unbelievedNow = new HashSet<>();
        Map<Integer, List<String>> untracked = new LinkedHashMap<>();
        for (Row held : seen) {
            if (!held.granted) {
                continue;
            }
            if (!atRead.tracked(held.key)) {
                untracked.computeIfAbsent(held.pid, k -> new ArrayList<>()).add(held.lock);
                continue;
            }
            List<SessionBook.Belief> believers = atRead.believers(held.key, held.pid);
            String asker = atRead.askerOf(held.key, held.pid);
            if (believers.isEmpty() && asker != null) {
                holdsNow.merge(asker, held.lock + " in " + atRead.nameOf(held.pid) + ", granted just now",
                        (a, b) -> a + ", " + b);
                continue;
            }
            if (believers.isEmpty()) {
                Granted lock = new Granted(held.pid, held.key);
                unbelievedNow.add(lock);
                if (unbelieved.contains(lock)) {
                    orphanCount++;
                    orphaned.add(atRead.nameOf(held.pid) + " holds " + held.lock + ", no worker owns it");
                }
                continue;
            }
            for (SessionBook.Belief belief : believers) {
                holdsNow.merge(belief.worker(), held.lock + " in " + atRead.nameOf(held.pid) + ", "
                        + (belief.transactionLevel() ? "transaction" : "session") + " level", (a, b) -> a + ", " + b);
            }
        }
        unbelieved = unbelievedNow;
        for (Map.Entry<Integer, List<String>> held : untracked.entrySet()) {
            String user = atRead.userOf(held.getKey());
            String locks = String.join(", ", held.getValue());
            if (user != null) {
                holdsNow.merge(user, locks, (a, b) -> a + ", " + b);
            } else {
                orphanCount += held.getValue().size();
                orphaned.add(atRead.nameOf(held.getKey()) + " holds " + locks + ", no worker owns "
                        + (held.getValue().size() == 1 ? "it" : "them"));
            }
        }
        if (!rows.isEmpty()) {
            rowHolders(array, atRead, holdsNow);
        }

        // pg_blocking_pids names the holders and also the sessions queued ahead; only those not
        // waiting themselves hold the lock. A holder not known to hold anything yet holds "a lock".
        Map<String, String> waitsNow = new LinkedHashMap<>();
        Set<Integer> waitingPids = new HashSet<>();
        waiters.forEach(w -> waitingPids.add(w.pid));
        for (Row w : waiters) {
            List<String> holders = new ArrayList<>();
            for (Integer blocker : w.blockers) {
                if (!waitingPids.contains(blocker)) {
                    holders.add(holderName(atRead, blocker, w.key));
                    String user = atRead.userOf(blocker);
                    if (user != null && (w.key == null || !atRead.tracked(w.key))) {
                        holdsNow.putIfAbsent(user, "a " + w.lock);
                    }
                }
            }
            String who = atRead.userOf(w.pid);
            if (who != null && !waitsNow.containsKey(who)) {
                waitsNow.put(who, (holders.isEmpty() ? "in line" : "for " + String.join(", ", holders))
                        + " (" + w.lock + ")");
            }
        }
        report(sink, EventKind.SERVER_WAITS, waiting, waitsNow);
        report(sink, EventKind.SERVER_HOLDS, holding, holdsNow);
        reportOrphans(sink, orphaned.isEmpty() ? null : String.join("; ", orphaned), orphanCount);
    }

    private void reportOrphans(LaneSink sink, String orphansNow, int count) {
        if (!Objects.equals(orphans, orphansNow)) {
            orphans = orphansNow;
            sink.record(0, EventKind.SERVER_ORPHANS, orphansNow, count);
        }
    }

    @Override
    public void abort() throws SQLException {
        Connection reading = connection;
        if (reading != null) {
            reading.abort(Runnable::run);
        }
    }

    @Override
    public void close() throws SQLException {
        if (connection != null) {
            connection.close();
        }
    }

    /** Names the sessions whose open transaction is the xmax of a protected row: they hold its lock. */
    private void rowHolders(Array pids, SessionBook.View atRead, Map<String, String> holdsNow) throws SQLException {
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
                ps.setString(1, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        Integer pid = pidOfXid.get(rs.getLong(1));
                        String who = pid == null ? null : atRead.userOf(pid);
                        if (who != null) {
                            holdsNow.merge(who, row.label(), (advisory, label) -> label + ", " + advisory);
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

    /**
     * One lock of the run's sessions as {@link #LOCKS} reads it: granted (an advisory lock) or
     * awaited (any kind), in words, with its advisory key (null for other kinds) and, if awaited,
     * the sessions in its way.
     */
    private record Row(int pid, boolean granted, String lock, AdvisoryKey key, Integer[] blockers) {
    }

    /** An advisory lock a session was granted. */
    private record Granted(int pid, AdvisoryKey key) {
    }

    private static List<Row> read(Connection connection, Array pids) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(LOCKS)) {
            ps.setArray(1, pids);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String locktype = rs.getString(3);
                    AdvisoryKey key = locktype.equals("advisory")
                            ? new AdvisoryKey(rs.getLong(5), rs.getLong(6), rs.getInt(7)) : null;
                    boolean granted = rs.getBoolean(2);
                    rows.add(new Row(rs.getInt(1), granted, describe(locktype, rs.getString(4), key), key,
                            granted ? new Integer[0] : (Integer[]) rs.getArray(8).getArray()));
                }
            }
        }
        return rows;
    }

    /**
     * Who a waiter for {@code key} waits for, when session {@code blocker} holds it: the workers
     * that believe they hold it, for a key the lab keeps count of; else the session's user; else the
     * session (an orphan's, which nobody will unlock).
     */
    private static String holderName(SessionBook.View atRead, int blocker, AdvisoryKey key) {
        if (key != null && atRead.tracked(key)) {
            List<SessionBook.Belief> believers = atRead.believers(key, blocker);
            if (!believers.isEmpty()) {
                return String.join(", ", believers.stream().map(SessionBook.Belief::worker).toList());
            }
            return atRead.nameOf(blocker);
        }
        String user = atRead.userOf(blocker);
        return user != null ? user : atRead.nameOf(blocker);
    }

    /**
     * The run's advisory locks as {@code pg_locks} has them now, read on {@code connection} (a
     * session of RaceLab's own, not a worker's): each one granted, with its session and who
     * believes they hold it, and each one awaited, with the sessions in its way. For an oracle that
     * must know, not guess, whether a lock is orphaned or a worker waits for one for ever.
     */
    public static AdvisoryLocks advisoryLocks(Connection connection, PgSessions run) throws SQLException {
        SessionBook.View sessions = run.live();
        Integer[] pids = sessions.pids().toArray(Integer[]::new);
        List<Held> held = new ArrayList<>();
        List<Awaited> awaited = new ArrayList<>();
        if (pids.length == 0) {
            return new AdvisoryLocks(held, awaited);
        }
        for (Row row : read(connection, connection.createArrayOf("int4", pids))) {
            if (row.key == null) {
                continue;
            }
            if (row.granted) {
                String user = sessions.userOf(row.pid);
                held.add(new Held(row.pid, sessions.nameOf(row.pid), row.key, user, sessions.tracked(row.key),
                        sessions.believers(row.key, row.pid), user != null && user.equals(sessions.askerOf(row.key, row.pid))));
            } else {
                awaited.add(new Awaited(row.pid, sessions.userOf(row.pid), row.key, List.of(row.blockers)));
            }
        }
        return new AdvisoryLocks(held, awaited);
    }

    /** What {@link #advisoryLocks} found. */
    public record AdvisoryLocks(List<Held> held, List<Awaited> awaited) {
        public AdvisoryLocks {
            held = List.copyOf(held);
            awaited = List.copyOf(awaited);
        }

        /** The locks held that no worker believes it holds: nobody will ever unlock them. */
        public List<Held> orphans() {
            return held.stream().filter(Held::orphaned).toList();
        }
    }

    /**
     * An advisory lock granted to session {@code session} (backend {@code pid}), which worker
     * {@code user} borrows now (or null), and which {@code believers} believe they hold; {@code
     * tracked} if the lab keeps count of its believers; {@code askedByUser} if the user's lock call
     * for it is still in flight.
     */
    public record Held(int pid, String session, AdvisoryKey key, String user, boolean tracked,
                       List<SessionBook.Belief> believers, boolean askedByUser) {
        public Held {
            believers = List.copyOf(believers);
        }

        /**
         * Whether nobody is going to unlock it: for a key the lab keeps count of, when no worker
         * believes it holds it nor has just been granted it ({@code askedByUser}); for any other,
         * when no worker uses its session.
         */
        public boolean orphaned() {
            return tracked ? believers.isEmpty() && !askedByUser : user == null;
        }
    }

    /** An advisory lock that backend {@code pid}, borrowed by worker {@code user}, waits for; {@code blockers} hold it or are ahead. */
    public record Awaited(int pid, String user, AdvisoryKey key, List<Integer> blockers) {
        public Awaited {
            blockers = List.copyOf(blockers);
        }
    }

    private static String describe(String locktype, String mode, AdvisoryKey key) {
        return switch (locktype) {
            case "transactionid", "tuple" -> "row lock";
            case "advisory" -> "advisory lock " + key + (mode.equals("ShareLock") ? " (shared)" : "");
            case "relation" -> "table lock (" + mode + ")";
            default -> locktype + " lock (" + mode + ")";
        };
    }
}
