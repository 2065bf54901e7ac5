package dev.racelab.backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates a lab's tables in schema {@code racelab}, once per schema version.
 *
 * <p>Each lab's SQL file has a {@code create} statement (its tables, functions, triggers — all in
 * {@code racelab}) and a {@code drop} statement that removes exactly those. The version of what
 * is installed is kept in {@code racelab.schema_versions}; when a lab's version changes, its
 * objects are dropped and created anew. Concurrent RaceLabs serialize on an advisory lock held for
 * the transaction only.
 */
public final class PgSchema {

    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtext('racelab.schema'))";

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
            if (installed(connection, component) != version) {
                statement.execute(sql.get("drop"));
                statement.execute(sql.get("create"));
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

    private static int installed(Connection connection, String component) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT version FROM racelab.schema_versions WHERE component = ?")) {
            query.setString(1, component);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? rs.getInt(1) : -1;
            }
        }
    }
}
