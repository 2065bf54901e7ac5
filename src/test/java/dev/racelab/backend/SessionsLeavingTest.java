package dev.racelab.backend;

import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server gives a pid again once its session has ended: a run that waits for its closed
 * sessions to leave must not take a later session with one of their pids (another run's, another
 * user's) for its own, wait for it, or end it. Against a real server, with a real session standing
 * in for the later one.
 */
@Tag("lab")
class SessionsLeavingTest {

    @Test
    void aSessionThatHasAnOldSessionsPidButStartedLaterIsLeftAlone() throws Exception {
        try (Connection stranger = named("racelab:stranger")) {
            int pid = pidOf(stranger);
            long started = startedOf(stranger);
            // The run's session with this pid started a second earlier: it has left, this one is
            // someone else's. Were it taken for the run's, it would be terminated halfway through the wait.
            SessionsLeaving.await(TestServers.postgres(), Map.of(pid, started - 1_000_000));
            assertTrue(stranger.isValid(2), "the stranger's session is alive");
            try (Statement s = stranger.createStatement()) {
                assertTrue(s.execute("SELECT 1"));
            }
        }
    }

    @Test
    void theRunsOwnSessionThatLingersIsEnded() throws Exception {
        try (Connection lingering = named("racelab:client-1")) {
            int pid = pidOf(lingering);
            SessionsLeaving.await(TestServers.postgres(), Map.of(pid, startedOf(lingering)));
            assertFalse(lingering.isValid(2), "the run's lingering session " + pid + " was ended");
        }
    }

    private static Connection named(String applicationName) throws SQLException {
        Connection c = TestServers.connect();
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config('application_name', ?, false)")) {
            ps.setString(1, applicationName);
            ps.execute();
        }
        return c;
    }

    private static int pidOf(Connection c) throws SQLException {
        return c.unwrap(org.postgresql.PGConnection.class).getBackendPID();
    }

    private static long startedOf(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + SessionsLeaving.STARTED
                + " FROM pg_stat_activity WHERE pid = pg_backend_pid()")) {
            assertTrue(rs.next());
            return rs.getLong(SessionsLeaving.STARTED_LABEL);
        }
    }
}
