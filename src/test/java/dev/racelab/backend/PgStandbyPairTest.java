package dev.racelab.backend;

import dev.racelab.support.Poll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's own primary and standby, on real processes: the standby replays what the primary
 * commits, through the relay; a held relay keeps a committed row from the standby until released;
 * closing stops both servers, leaves nothing listening, and removes their clusters.
 */
@Tag("lab")
class PgStandbyPairTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @TempDir
    Path home;

    @Test
    void aHeldRelayKeepsACommitFromTheStandbyUntilReleasedAndClosingLeavesNothing() throws Exception {
        List<ProcessHandle> servers = new ArrayList<>();
        int primaryPort;
        int standbyPort;
        long started = System.nanoTime();
        try (Backends backends = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            PgStandbyPair pair = backends.standbyPair();
            System.out.printf("primary and standby up in %d ms%n", (System.nanoTime() - started) / 1_000_000);
            primaryPort = pair.primary().address().port();
            standbyPort = pair.standby().address().port();
            try (Connection primary = pair.primary().connect("test");
                 Connection standby = pair.standby().connect("test");
                 Statement p = primary.createStatement();
                 Statement s = standby.createStatement()) {
                p.execute("CREATE TABLE IF NOT EXISTS racelab.pair_test (v int)");
                p.execute("INSERT INTO racelab.pair_test VALUES (1)");
                assertTrue(Poll.eventually(WITHIN, () -> count(s) == 1), "the standby replays the first row");

                pair.relay().orElseThrow().hold();
                p.execute("INSERT INTO racelab.pair_test VALUES (2)");
                Poll.until("the relay holds the commit's WAL", () -> pair.relay().orElseThrow().heldBytes() > 0);
                assertEquals(1, count(s), "the standby has not seen a commit the relay holds");
                SQLException readOnly = assertThrows(SQLException.class,
                        () -> s.execute("INSERT INTO racelab.pair_test VALUES (3)"));
                assertEquals("25006", readOnly.getSQLState(), "the standby is read-only");

                pair.relay().orElseThrow().release();
                assertTrue(Poll.eventually(WITHIN, () -> count(s) == 2), "the standby replays the released commit");
            }
            for (Path data : List.of(home.resolve("postgres-standby/slot-0/primary"),
                    home.resolve("postgres-standby/slot-0/standby"))) {
                long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).strip());
                servers.add(ProcessHandle.of(pid).orElseThrow());
            }
        }
        for (ProcessHandle server : servers) {
            assertFalse(server.isAlive(), "server " + server.pid() + " stopped");
        }
        for (int port : new int[] {primaryPort, standbyPort}) {
            assertFalse(listening(port), "nothing listens on " + port + " any more");
        }
        assertFalse(Files.exists(home.resolve("postgres-standby/slot-0/primary")), "the primary's cluster is gone");
        assertTrue(Files.exists(home.resolve("postgres-standby/slot-0/primary.log")), "its log is kept");
    }

    /** The rows the server has; -1 while it has not replayed the table's creation yet. */
    private static long count(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM racelab.pair_test")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return -1;
            }
            throw e;
        }
    }

    private static boolean listening(int port) {
        try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
