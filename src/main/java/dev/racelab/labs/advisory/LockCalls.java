package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.SqlFile;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The lab's statements ({@code advisory-lock.sql}), and how any session of the lab, a worker's
 * or RaceLab's own, calls an advisory-lock function: the two-key form for a two-key lock, and its
 * boolean answer read back.
 */
final class LockCalls {

    static final SqlFile SQL = SqlFile.load(LockCalls.class, "advisory-lock.sql");

    private LockCalls() {
    }

    /** Runs the lock call {@code statement} (its two-key form for a two-key lock) on {@code c}; its boolean answer, or true for one that answers nothing. */
    static boolean call(Connection c, String statement, AdvisoryKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SQL.get(key.twoKeys() ? statement + "-2" : statement))) {
            if (key.twoKeys()) {
                ps.setInt(1, key.key1());
                ps.setInt(2, key.key2());
            } else {
                ps.setLong(1, key.key());
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Object answer = rs.getObject(1);
                return !(answer instanceof Boolean granted) || granted;
            }
        }
    }
}
