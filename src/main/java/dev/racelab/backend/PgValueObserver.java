package dev.racelab.backend;

import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * A protected row's values as PostgreSQL holds them, on one server lane: runs {@code query} (one
 * parameter, the run id; one row of numbers) and records a {@code SERVER_VALUE} for each column
 * whose value changed, labelled with {@code labels}.
 */
public final class PgValueObserver implements ServerObserver {

    private final Postgres postgres;
    private final String lane;
    private final String query;
    private final String runId;
    private final List<String> labels;
    private final Long[] last;
    /** Opened by {@link #connect} or the first poll; cut by {@link #abort} from another thread. */
    private volatile Connection connection;

    public PgValueObserver(Postgres postgres, String lane, String query, String runId, List<String> labels) {
        this.postgres = postgres;
        this.lane = lane;
        this.query = query;
        this.runId = runId;
        this.labels = List.copyOf(labels);
        this.last = new Long[labels.size()];
    }

    @Override
    public List<String> lanes() {
        return List.of(lane);
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
        try (PreparedStatement ps = connection.prepareStatement(query)) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return;
                }
                for (int i = 0; i < labels.size(); i++) {
                    long value = rs.getLong(i + 1);
                    if (last[i] == null || last[i] != value) {
                        last[i] = value;
                        sink.record(0, EventKind.SERVER_VALUE, labels.get(i), value);
                    }
                }
            }
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
}
