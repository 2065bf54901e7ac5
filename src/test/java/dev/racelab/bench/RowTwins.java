package dev.racelab.bench;

import dev.racelab.backend.SqlFile;
import dev.racelab.labs.counter.CounterLab;
import dev.racelab.labs.fencing.FencingLab;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * The raw twins of the labs whose workers each own a session and write one row: the counter and
 * the fencing token. Each sends the lab's own statements with the same parameters and the same
 * transaction handling (autocommit unless the strategy opens a transaction; the isolation level
 * set once per session, as the lab's sessions do).
 */
final class RowTwins {

    private static final SqlFile COUNTER = SqlFile.load(CounterLab.class, "counter.sql");
    private static final SqlFile FENCING = SqlFile.load(FencingLab.class, "fencing.sql");
    private static final String SERIALIZATION_FAILURE = "40001";

    private RowTwins() {
    }

    static Map<String, RawTwin> all() {
        return Map.of(
                "counter/read-modify-write", twin("SELECT value; UPDATE … SET value = ?, autocommit",
                        COUNTER, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                            long value = queryLong(c, COUNTER.get("read"), run);
                            update(c, COUNTER.get("write"), value + 1, run);
                        }),
                "counter/atomic-update", twin("UPDATE … SET value = value + 1 RETURNING, autocommit",
                        COUNTER, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                            try (PreparedStatement ps = c.prepareStatement(COUNTER.get("increment"))) {
                                ps.setString(1, run);
                                try (ResultSet rs = ps.executeQuery()) {
                                    rs.next();
                                    rs.getLong(1);
                                    rs.getLong(2);
                                }
                            }
                        }),
                "counter/select-for-update", twin("BEGIN; SELECT … FOR UPDATE; UPDATE; COMMIT (read committed)",
                        COUNTER, Connection.TRANSACTION_READ_COMMITTED,
                        (c, run, index, workers) -> n -> inTransaction(c, () -> {
                            long value = queryLong(c, COUNTER.get("read-for-update"), run);
                            update(c, COUNTER.get("write"), value + 1, run);
                        })),
                "counter/serializable-retry", twin("BEGIN; SELECT; UPDATE; COMMIT (serializable), again after 40001",
                        COUNTER, Connection.TRANSACTION_SERIALIZABLE, (c, run, index, workers) -> n -> {
                            while (true) {
                                try {
                                    inTransaction(c, () -> {
                                        long value = queryLong(c, COUNTER.get("read"), run);
                                        update(c, COUNTER.get("write"), value + 1, run);
                                    });
                                    return;
                                } catch (SQLException e) {
                                    if (!SERIALIZATION_FAILURE.equals(e.getSQLState())) {
                                        throw e;
                                    }
                                }
                            }
                        }),
                "fencing/blind-write", twin("UPDATE token + 1 RETURNING; UPDATE price, token, autocommit",
                        FENCING, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                            long token = queryLong(c, FENCING.get("next-token"), run);
                            writePrice(c, "write-price", price(index, n, workers), token, run);
                        }),
                "fencing/check-then-write", twin("UPDATE token + 1; SELECT latest token; UPDATE price, autocommit",
                        FENCING, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                            long token = queryLong(c, FENCING.get("next-token"), run);
                            if (queryLong(c, FENCING.get("latest-token"), run) <= token) {
                                writePrice(c, "write-price", price(index, n, workers), token, run);
                            }
                        }),
                "fencing/fenced-cas", twin("UPDATE token + 1; UPDATE price … WHERE token < ?, autocommit",
                        FENCING, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                            long token = queryLong(c, FENCING.get("next-token"), run);
                            writePrice(c, "write-price-if-newer", price(index, n, workers), token, run);
                        }));
    }

    private static RawTwin twin(String sends, SqlFile sql, int isolation, RawTwin.Scripts scripts) {
        return new RawTwin(sends, Map.of(), RawTwin.ownSessions(sql, isolation, scripts));
    }

    @FunctionalInterface
    interface Body {
        void run() throws SQLException;
    }

    /** The body in a transaction of its own: BEGIN (pgjdbc's, with the first statement), the body, COMMIT. */
    static void inTransaction(Connection c, Body body) throws SQLException {
        c.setAutoCommit(false);
        try {
            body.run();
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static long queryLong(Connection c, String sql, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, run);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void update(Connection c, String sql, long value, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, value);
            ps.setString(2, run);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                rs.getLong(1);
            }
        }
    }

    /** The fencing lab's price for client {@code index}'s operation {@code n}. */
    private static long price(int index, int n, int workers) {
        return 100 + (long) n * workers + index + 1;
    }

    private static void writePrice(Connection c, String statement, long price, long token, String run)
            throws SQLException {
        write(c, FENCING.get(statement), price, token, run, statement.equals("write-price-if-newer"));
    }

    /**
     * A write that carries a token, as the fencing labs write ({@code value, token, run}, and the
     * token again when {@code fenced}); whether the row was written (it answered its RETURNING).
     */
    static boolean write(Connection c, String sql, long value, long token, String run, boolean fenced)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, value);
            ps.setLong(2, token);
            ps.setString(3, run);
            if (fenced) {
                ps.setLong(4, token);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    rs.getLong(1);
                    return true;
                }
                return false;
            }
        }
    }
}
