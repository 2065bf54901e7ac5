package dev.racelab.support;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * The servers the whole test run shares: the ones named by {@code RACELAB_PG_URL} /
 * {@code RACELAB_REDIS_URL} when set, otherwise RaceLab's embedded servers, started once per test
 * JVM on first use and stopped when it exits.
 */
public final class TestServers {

    private static final Backends BACKENDS = new Backends(
            BackendSettings.resolve(null, null, System.getenv()),
            DataHome.resolve(System.getenv()),
            (service, stage, message) -> System.err.println("[test servers] " + message));

    /**
     * RaceLab's own topologies (a PostgreSQL primary with a standby), which RaceLab always starts
     * itself, whichever shared servers the suite uses: started on first use, stopped at exit.
     */
    private static final Backends TOPOLOGIES = new Backends(BackendSettings.embedded(),
            DataHome.resolve(System.getenv()),
            (service, stage, message) -> System.err.println("[test topologies] " + message));

    /** The suite's PostgreSQL with RaceLab's own Redis topology; made on first use. */
    private static Backends failover;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            BACKENDS.close();
            TOPOLOGIES.close();
            synchronized (TestServers.class) {
                if (failover != null) {
                    failover.close();
                }
            }
        }, "test-servers-shutdown"));
    }

    private TestServers() {
    }

    public static Backends backends() {
        return BACKENDS;
    }

    /** Backends for RaceLab's own topologies, embedded whatever the suite's shared servers are. */
    public static Backends topologies() {
        return TOPOLOGIES;
    }

    /**
     * Backends for the labs that need RaceLab's own Redis with Sentinels beside the suite's
     * PostgreSQL: that PostgreSQL (embedded or named), and RaceLab's Redis whatever the suite's is.
     */
    public static synchronized Backends failover() {
        if (failover == null) {
            failover = new Backends(new BackendSettings(Optional.of(postgres().address()), Optional.empty()),
                    DataHome.resolve(System.getenv()),
                    (service, stage, message) -> System.err.println("[test topologies] " + message));
        }
        return failover;
    }

    public static Postgres postgres() {
        try {
            return BACKENDS.postgres();
        } catch (BackendException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    public static Redis redis() {
        try {
            return BACKENDS.redis();
        } catch (BackendException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A plain session for checking what the server holds, named {@code racelab:test}. */
    public static Connection connect() throws SQLException {
        return postgres().connect("test");
    }

    /** The environment a child RaceLab needs to use the same servers as this test run. */
    public static Map<String, String> childEnvironment() {
        Postgres pg = postgres();
        return Map.of(BackendSettings.PG_ENV, pg.address().secretUrl());
    }

    /** Whether the suite runs against servers named in the environment rather than embedded ones. */
    public static boolean external() {
        return BACKENDS.settings().postgres().isPresent();
    }
}
