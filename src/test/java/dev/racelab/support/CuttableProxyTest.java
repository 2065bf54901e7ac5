package dev.racelab.support;

import dev.racelab.backend.PgAddress;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The relay tests put in front of a real server passes on what the server does to a session. */
@Tag("lab")
class CuttableProxyTest {

    /** Far beyond any busy machine's round trip: a client still waiting then was left waiting for ever. */
    private static final long LEFT_WAITING_SECONDS = 30;

    @Test
    void aSessionTheServerEndsEndsForTheClientBehindTheRelay() throws Exception {
        PgAddress real = TestServers.postgres().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port());
             Connection relayed = connect(real, proxy.port());
             Connection admin = TestServers.connect()) {
            int pid;
            try (ResultSet rs = relayed.createStatement().executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            try (PreparedStatement terminate = admin.prepareStatement("SELECT pg_terminate_backend(?, 10000)")) {
                terminate.setInt(1, pid);
                try (ResultSet rs = terminate.executeQuery()) {
                    rs.next();
                    assertTrue(rs.getBoolean(1), "the session was ended");
                }
            }
            // Like a RaceLab worker's session, this one has no socket timeout: only the relay passing
            // the server's close on tells the client its session is gone.
            CompletableFuture<Void> query = CompletableFuture.runAsync(() -> {
                try {
                    relayed.createStatement().executeQuery("SELECT 1").close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                query.get(LEFT_WAITING_SECONDS, TimeUnit.SECONDS);
                fail("a query on a session the server ended succeeded");
            } catch (ExecutionException e) {
                assertInstanceOf(SQLException.class, e.getCause().getCause(), String.valueOf(e.getCause()));
            } catch (TimeoutException e) {
                fail("the client behind the relay was left waiting on a session the server had ended");
            }
        }
    }

    private static Connection connect(PgAddress real, int port) throws SQLException {
        Properties props = real.properties();
        props.setProperty("ApplicationName", "racelab:test-relayed");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + real.database(), props);
    }
}
