package dev.racelab.ui;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.RedisAddress;
import dev.racelab.support.TestServers;
import dev.racelab.ui.startup.ServerStartup;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import java.util.Optional;

/** Servers that refuse every connection: a loopback port just closed, for PostgreSQL and Redis alike. */
final class UnreachableServers {

    private UnreachableServers() {
    }

    /** Backends whose PostgreSQL and Redis both refuse to connect, reporting to {@code startup}. */
    static Backends backends(ServerStartup startup) throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        PgAddress real = TestServers.postgres().address();
        PgAddress noPostgres = new PgAddress("127.0.0.1", closedPort, real.database(), real.user(), null, Map.of());
        RedisAddress noRedis = new RedisAddress("127.0.0.1", closedPort, 0, null, null, false);
        return new Backends(new BackendSettings(Optional.of(noPostgres), Optional.of(noRedis)),
                DataHome.resolve(System.getenv()), startup);
    }
}
