package dev.racelab.labs.replicaread;

import dev.racelab.backend.PgStandbyPair;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Replication as the servers report it, one server lane for each step a commit's WAL takes: the
 * primary flushes it, sends it (into the relay), the standby receives it, then replays it. A gap
 * between "sent" and "received" is what the relay holds; between "received" and "replayed", a
 * paused or slow replay. Positions count bytes from the primary's flushed position at the first
 * read, so the numbers stay small enough to read.
 */
final class ReplicationObserver implements ServerObserver {

    static final String FLUSHED = "primary flushed";
    static final String SENT = "sent to standby";
    static final String RECEIVED = "standby received";
    static final String REPLAYED = "standby replayed";
    private static final List<String> LANES = List.of(FLUSHED, SENT, RECEIVED, REPLAYED);

    private final PgStandbyPair pair;
    private volatile Connection primary;
    private volatile Connection standby;
    private long origin = -1;
    private final long[] last = {-1, -1, -1, -1};

    ReplicationObserver(PgStandbyPair pair) {
        this.pair = pair;
    }

    @Override
    public List<String> lanes() {
        return LANES;
    }

    @Override
    public void connect() throws SQLException {
        if (primary == null) {
            primary = pair.primary().control("observer");
        }
        if (standby == null) {
            standby = pair.standby().control("observer");
        }
    }

    @Override
    public void poll(LaneSink sink) throws SQLException {
        connect();
        long[] now = new long[4];
        try (PreparedStatement ps = primary.prepareStatement(ReplicaReadScenario.SQL.get("primary-lsn"))) {
            ps.setString(1, pair.standbyName().orElse(null));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                now[0] = Lsn.parse(rs.getString(1));
                now[1] = Lsn.parse(rs.getString(2));
            }
        }
        try (Statement s = standby.createStatement();
             ResultSet rs = s.executeQuery(ReplicaReadScenario.SQL.get("standby-lsn"))) {
            rs.next();
            now[2] = Lsn.parse(rs.getString(1));
            now[3] = Lsn.parse(rs.getString(2));
        }
        if (origin < 0) {
            origin = now[0];
        }
        for (int lane = 0; lane < LANES.size(); lane++) {
            long value = Math.max(0, now[lane] - origin);
            if (last[lane] != value) {
                last[lane] = value;
                sink.record(lane, EventKind.SERVER_VALUE, "bytes", value);
            }
        }
    }
    @Override
    public void abort() throws SQLException {
        for (Connection c : new Connection[] {primary, standby}) {
            if (c != null) {
                c.abort(Runnable::run);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        for (Connection c : new Connection[] {primary, standby}) {
            if (c != null) {
                c.close();
            }
        }
    }
}
