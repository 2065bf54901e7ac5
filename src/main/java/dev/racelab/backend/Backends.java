package dev.racelab.backend;

import dev.racelab.engine.Service;

import java.nio.file.Path;

/**
 * The servers of one RaceLab process, brought up on first use.
 *
 * <p>{@link #postgres()} and {@link #redis()} connect to the configured server, or start the
 * embedded one, the first time they are called, and return the same one afterwards; a command
 * line run of a PostgreSQL lab never starts Redis. Closing stops whatever was started. Both
 * accessors are synchronized per service: a second caller waits for the first start.
 */
public final class Backends implements AutoCloseable {

    private final Path home;
    private final StartupListener listener;
    private final Object postgresLock = new Object();
    private final Object redisLock = new Object();
    private volatile BackendSettings settings;
    private Postgres postgres;
    private Redis redis;

    public Backends(BackendSettings settings, Path home, StartupListener listener) {
        this.settings = settings;
        this.home = home;
        this.listener = listener;
    }

    public BackendSettings settings() {
        return settings;
    }

    /**
     * Switches to other servers. A service whose address changes is closed now (an embedded server
     * stops) and brought up anew on its next use; an unchanged one stays as it is.
     */
    public void use(BackendSettings next) {
        BackendSettings previous = settings;
        settings = next;
        if (!previous.postgres().equals(next.postgres())) {
            synchronized (postgresLock) {
                closeQuietly(postgres);
                postgres = null;
            }
        }
        if (!previous.redis().equals(next.redis())) {
            synchronized (redisLock) {
                closeQuietly(redis);
                redis = null;
            }
        }
    }

    /** The PostgreSQL server, started or reached now if this is the first call. */
    public Postgres postgres() throws BackendException {
        synchronized (postgresLock) {
            if (postgres == null) {
                if (settings.postgres().isPresent()) {
                    PgAddress address = settings.postgres().get();
                    listener.progress(Service.POSTGRES, StartupListener.Stage.CONNECTING, "Connecting to PostgreSQL at " + address.host() + ":"
                            + address.port() + "…");
                    postgres = Postgres.connect(address);
                } else {
                    postgres = EmbeddedPostgresServer.start(home, listener);
                }
                listener.progress(Service.POSTGRES, StartupListener.Stage.READY, "Ready: " + postgres.describe());
            }
            return postgres;
        }
    }

    /** The Redis server, started or reached now if this is the first call. */
    public Redis redis() throws BackendException {
        synchronized (redisLock) {
            if (redis == null) {
                if (settings.redis().isPresent()) {
                    RedisAddress address = settings.redis().get();
                    listener.progress(Service.REDIS, StartupListener.Stage.CONNECTING, "Connecting to Redis at " + address.host() + ":"
                            + address.port() + "…");
                    redis = Redis.connect(address);
                } else {
                    redis = EmbeddedRedisServer.start(home, listener);
                }
                listener.progress(Service.REDIS, StartupListener.Stage.READY, "Ready: " + redis.describe());
            }
            return redis;
        }
    }

    /** Brings up a service; for callers that know only the {@link Service}. */
    public void ensure(Service service) throws BackendException {
        switch (service) {
            case POSTGRES -> postgres();
            case REDIS -> redis();
        }
    }

    /** What serves each service that is up, without credentials: "embedded PostgreSQL 17.11 on …". */
    public String describe(Service service) {
        synchronized (service == Service.POSTGRES ? postgresLock : redisLock) {
            Object server = service == Service.POSTGRES ? postgres : redis;
            return server == null ? "not started" : server.toString();
        }
    }

    /** Stops embedded servers and forgets connections; the next call starts afresh. */
    @Override
    public void close() {
        synchronized (postgresLock) {
            closeQuietly(postgres);
            postgres = null;
        }
        synchronized (redisLock) {
            closeQuietly(redis);
            redis = null;
        }
    }

    private static void closeQuietly(AutoCloseable server) {
        if (server != null) {
            try {
                server.close();
            } catch (Exception ignored) {
                // Stopping a server on the way out; nothing useful to do about a failure here.
            }
        }
    }
}
