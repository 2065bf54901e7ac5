package dev.racelab.backend;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A first start copies the cluster the build prepared ({@link PreparedPostgres}) instead of running
 * {@code initdb}, and the server it starts is the one {@code initdb} would have made: the same
 * encoding, locale and superuser, whichever way the cluster came about.
 */
@Tag("lab")
class PreparedClusterTest {

    /** What a lab or an isolation spec could tell apart between two clusters. */
    private static final String SETTINGS = "SELECT current_user AS current_user, "
            + "current_setting('server_encoding') AS server_encoding, "
            + "current_setting('server_version_num') AS version, (SELECT datcollate || ' ' || datctype || ' ' "
            + "|| datlocprovider::text FROM pg_database WHERE datname = current_database()) AS locale, "
            + "(SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database) AS databases, "
            + "(SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles) AS roles";

    @TempDir
    Path dir;

    @Test
    void aFirstStartCopiesThePreparedClusterAndServesWhatInitdbWouldHaveMade() throws Exception {
        assertTrue(PreparedPostgres.forThisPlatform().flatMap(PreparedPostgres::cluster).isPresent(),
                "this build prepared a cluster for its own platform");
        Path copied = dir.resolve("copied");
        Map<String, String> fromCopy = settingsOfAFirstStart(copied);
        String log = Files.readString(copied.resolve("postgres/slot-0/postgres.log"));
        assertFalse(log.contains("initdb") || log.contains("The files belonging to this database system"),
                "initdb never ran: " + log);

        Map<String, String> fromInitdb;
        System.setProperty("racelab.postgres.initdb", "yes");
        try {
            Path made = dir.resolve("made");
            fromInitdb = settingsOfAFirstStart(made);
            assertTrue(Files.readString(made.resolve("postgres/slot-0/postgres.log"))
                    .contains("The files belonging to this database system"), "this one was made by initdb");
        } finally {
            System.clearProperty("racelab.postgres.initdb");
        }
        assertEquals(fromInitdb, fromCopy);
        assertEquals("postgres", fromCopy.get("current_user"));
        assertEquals("C C c", fromCopy.get("locale"));
        assertEquals("UTF8", fromCopy.get("server_encoding"));
    }

    @Test
    void aCopyCalledOffHalfWayLeavesNoHalfClusterAndTheNextCopyIsWhole() throws Exception {
        PreparedPostgres prepared = PreparedPostgres.forThisPlatform().orElseThrow();
        Path data = dir.resolve("slot-0/data");
        Files.createDirectories(data);
        AtomicInteger files = new AtomicInteger();

        assertThrows(CalledOff.class, () -> prepared.copyClusterTo(data, () -> files.incrementAndGet() > 100));

        assertTrue(files.get() > 100, "the copy was under way when it was called off");
        assertEquals(List.of("data"), namesIn(data.getParent()), "no half cluster beside the empty data folder");
        assertEquals(List.of(), namesIn(data));

        assertTrue(prepared.copyClusterTo(data, () -> false));
        assertTrue(Files.isRegularFile(data.resolve("PG_VERSION")));
        assertTrue(Files.isRegularFile(data.resolve("global/pg_control")));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data)),
                "PostgreSQL starts only on a data directory private to its user");
        assertEquals(List.of("data"), namesIn(data.getParent()));
    }

    /** Starts the embedded PostgreSQL in a new home and reads {@link #SETTINGS}, by column name. */
    private static Map<String, String> settingsOfAFirstStart(Path home) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Postgres postgres = EmbeddedPostgresServer.start(home, StartupListener.SILENT, () -> false, null);
             Connection c = postgres.connect("prepared-cluster-test"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(SETTINGS)) {
            assertTrue(rs.next());
            for (int column = 1; column <= rs.getMetaData().getColumnCount(); column++) {
                settings.put(rs.getMetaData().getColumnLabel(column), rs.getString(column));
            }
        }
        return settings;
    }

    private static List<String> namesIn(Path folder) throws Exception {
        try (Stream<Path> all = Files.list(folder)) {
            return all.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
