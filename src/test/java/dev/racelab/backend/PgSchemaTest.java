package dev.racelab.backend;

import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lab's tables in schema {@code racelab}, against a real server: RaceLab replaces what it
 * installed itself, and never drops a table of the same name that someone else made there.
 */
@Tag("lab")
class PgSchemaTest {

    private final String suffix = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private final String component = "schema-test-" + suffix;
    private final String table = "racelab.schema_test_" + suffix;

    private SqlFile sql(int columns) {
        StringBuilder create = new StringBuilder("CREATE TABLE " + table + " (id int PRIMARY KEY");
        for (int c = 1; c < columns; c++) {
            create.append(", extra_").append(c).append(" int");
        }
        return SqlFile.parse("test", "-- name: drop\nDROP TABLE IF EXISTS " + table + ";\n-- name: create\n"
                + create + ");\n");
    }

    @AfterEach
    void cleanUp() throws SQLException {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DELETE FROM racelab.schema_versions WHERE component = '" + component + "'");
        }
    }

    @Test
    void aTableSomeoneElseMadeInRacelabIsNamedAndLeftAlone() throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS racelab");
            s.execute("CREATE TABLE " + table + " (theirs text)");
            s.execute("INSERT INTO " + table + " VALUES ('their precious row')");

            SQLException refused = assertThrows(SQLException.class, () -> PgSchema.ensure(c, component, 1, sql(1)));
            assertTrue(refused.getMessage().startsWith(table + " already exists, and RaceLab did not create it"),
                    refused.getMessage());
            assertTrue(c.getAutoCommit(), "the connection is left as it was");
            try (ResultSet rs = s.executeQuery("SELECT theirs FROM " + table)) {
                assertTrue(rs.next());
                assertEquals("their precious row", rs.getString(1), "their table and row are untouched");
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM racelab.schema_versions WHERE component = '"
                    + component + "'")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "and RaceLab did not claim it");
            }
        }
    }

    @Test
    void aTableRaceLabInstalledIsReplacedByItsNextVersion() throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            PgSchema.ensure(c, component, 1, sql(1));
            s.execute("INSERT INTO " + table + " VALUES (1)");
            PgSchema.ensure(c, component, 1, sql(1));
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                rs.next();
                assertEquals(1, rs.getInt(1), "the same version is kept as it is");
            }
            PgSchema.ensure(c, component, 2, sql(2));
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.columns WHERE table_schema "
                    + "= 'racelab' AND table_name = 'schema_test_" + suffix + "'")) {
                rs.next();
                assertEquals(2, rs.getInt(1), "version 2 replaced version 1");
            }
        }
    }
}
