package dev.racelab.backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Creates a lab's tables in schema {@code racelab}, once per schema version.
 *
 * <p>Each lab's SQL file has a {@code create} statement (its tables, functions, triggers — all in
 * {@code racelab}) and a {@code drop} statement that removes exactly those. The version of what
 * is installed is kept in {@code racelab.schema_versions}; when a lab's version changes, its
 * objects are dropped and created anew. Objects of a lab with no version on record are not
 * RaceLab's: they are never dropped, and RaceLab refuses to run that lab there, naming them.
 * Concurrent RaceLabs serialize on an advisory lock held for the transaction only.
 */
public final class PgSchema {

    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtext('racelab.schema'))";
    private static final String SCHEMA = "racelab";
    /** No version of the component on record: RaceLab never installed it here. */
    private static final int NONE = -1;
    /** duplicate_table, duplicate_function, duplicate_object. */
    private static final Set<String> DUPLICATE = Set.of("42P07", "42723", "42710");
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]+)\"");

    private PgSchema() {
    }

    public static void ensure(Connection connection, String component, int version, SqlFile sql) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute(LOCK);
            statement.execute("CREATE SCHEMA IF NOT EXISTS racelab");
            statement.execute("CREATE TABLE IF NOT EXISTS racelab.schema_versions "
                    + "(component text PRIMARY KEY, version int NOT NULL)");
            int installed = installed(connection, component);
            if (installed != version) {
                if (installed != NONE) {
                    // An older version that RaceLab installed and recorded: RaceLab's to replace.
                    statement.execute(sql.get("drop"));
                }
                create(statement, sql, installed);
                try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO racelab.schema_versions "
                        + "VALUES (?, ?) ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version")) {
                    upsert.setString(1, component);
                    upsert.setInt(2, version);
                    upsert.executeUpdate();
                }
            }
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /**
     * Creates the lab's objects. Where RaceLab has no record of installing them, an object of the
     * same name is someone else's: RaceLab refuses, naming it, and leaves it as it is.
     */
    private static void create(Statement statement, SqlFile sql, int installed) throws SQLException {
        try {
            statement.execute(sql.get("create"));
        } catch (SQLException e) {
            if (installed == NONE && DUPLICATE.contains(String.valueOf(e.getSQLState()))) {
                Matcher name = QUOTED.matcher(String.valueOf(e.getMessage()));
                String what = name.find() ? SCHEMA + "." + name.group(1) : "an object in schema " + SCHEMA;
                throw new ForeignObject(what + " already exists, and RaceLab did not create it. RaceLab never drops "
                        + "what it did not make: rename or drop it yourself, or point RaceLab at another database", e);
            }
            throw e;
        }
    }

    /**
     * Someone else's object stands where a lab's would go: the server cannot be used for that lab
     * as it is, which only its owner can change.
     */
    public static final class ForeignObject extends SQLException {
        ForeignObject(String message, SQLException cause) {
            super(message, cause.getSQLState(), cause);
        }
    }

    private static int installed(Connection connection, String component) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT version FROM racelab.schema_versions WHERE component = ?")) {
            query.setString(1, component);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? rs.getInt(1) : NONE;
            }
        }
    }
}
