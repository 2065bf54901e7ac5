package dev.racelab.isolation.run;

import dev.racelab.backend.SqlFile;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Set;

/**
 * RaceLab's own statements about a spec's sandbox, on a connection of the user's login: the
 * templates of {@code isolation.sql}. Names of databases and roles cannot be parameters, so a
 * template is a {@code format()} the server fills ({@code %I} quotes a name, {@code %L} a value),
 * and the statement it returns is run as it is: nothing is quoted by RaceLab itself.
 */
final class AdminSql {

    private static final SqlFile SQL = SqlFile.load(AdminSql.class, "isolation.sql");
    /** What two RaceLabs writing one setting's rights at once may meet (pg_parameter_acl): worth another try. */
    private static final Set<String> CONCURRENT = Set.of("XX000", "23505", "40001");
    private static final int TRIES = 5;

    private AdminSql() {
    }

    /** The named template's SQL. */
    static String get(String name) {
        return SQL.get(name);
    }

    /** Runs the statement that the named template's {@code format()} makes of {@code values}. */
    static void run(Connection c, String template, String... values) throws SQLException {
        SQL.runMade(c, template, values);
    }

    /**
     * {@link #run}, tried again a few times when another session changed the same shared row at
     * the same moment: rights on a setting live in one row for the whole server.
     */
    static void runShared(Connection c, String template, String... values) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                run(c, template, values);
                return;
            } catch (SQLException e) {
                if (!CONCURRENT.contains(e.getSQLState()) || attempt >= TRIES) {
                    throw e;
                }
            }
            try {
                Thread.sleep(20L * attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted", e);
            }
        }
    }

    /** The server's time: marks of leftovers are written and read by the server's clock, whatever RaceLab's says. */
    static Instant now(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_catalog.now()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    /** The server's time {@code after} from now, as a mark's text shows it. */
    static Instant later(Connection c, Duration after) throws SQLException {
        return now(c).plus(after);
    }

    /** Statements that go together. */
    interface Work {
        void run() throws SQLException;
    }

    /** Runs {@code work} on {@code c} as one transaction: all of it, or (rolled back) none. */
    static void inTransaction(Connection c, Work work) throws SQLException {
        c.setAutoCommit(false);
        try {
            work.run();
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }
}
