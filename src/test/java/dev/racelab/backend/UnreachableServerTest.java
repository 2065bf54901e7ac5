package dev.racelab.backend;

import dev.racelab.engine.Service;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server that cannot be used gives one sentence naming the server, its address and the reason. */
@Tag("engine")
class UnreachableServerTest {

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aPostgresNobodyListensOnIsNamedWithItsAddress() throws Exception {
        int port = closedPort();
        BackendException e = assertThrows(BackendException.class,
                () -> Postgres.connect(PgAddress.parse("postgresql://alice:s3cret@127.0.0.1:" + port + "/db")));
        assertEquals(Service.POSTGRES, e.service());
        assertTrue(e.getMessage().startsWith("PostgreSQL at 127.0.0.1:" + port + " cannot be reached"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cret"));
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void aRedisNobodyListensOnIsNamedWithItsAddress() throws Exception {
        int port = closedPort();
        BackendException e = assertThrows(BackendException.class,
                () -> Redis.connect(RedisAddress.parse("redis://:s3cret@127.0.0.1:" + port)));
        assertEquals(Service.REDIS, e.service());
        assertTrue(e.getMessage().startsWith("Redis at 127.0.0.1:" + port + " cannot be reached"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cret"));
    }

    @Test
    void aDatabaseThatDoesNotExistIsNamed() {
        PgAddress real = TestServers.postgres().address();
        PgAddress missing = new PgAddress(real.host(), real.port(), "no_such_db_for_racelab", real.user(), null,
                java.util.Map.of());
        BackendException e = assertThrows(BackendException.class, () -> Postgres.connect(missing));
        assertTrue(e.getMessage().contains("no database 'no_such_db_for_racelab'")
                || e.getMessage().contains("no_such_db_for_racelab"), e.getMessage());
    }

    @Test
    void aServerThatIsNotPostgresIsReportedAsUnusable() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            Thread acceptor = new Thread(() -> {
                try (var socket = silent.accept()) {
                    socket.getOutputStream().write("HTTP/1.0 400 nope\r\n\r\n".getBytes());
                } catch (Exception ignored) {
                    // The client gave up first.
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            BackendException e = assertThrows(BackendException.class,
                    () -> Postgres.connect(PgAddress.parse("postgresql://u@127.0.0.1:" + silent.getLocalPort() + "/x")));
            assertTrue(e.getMessage().startsWith("PostgreSQL at 127.0.0.1:" + silent.getLocalPort()), e.getMessage());
        }
    }
}
