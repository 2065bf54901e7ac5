package dev.racelab.backend;

import dev.racelab.engine.Service;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The servers of one RaceLab process, brought up on first use.
 *
 * <p>{@link #postgres()} and {@link #redis()} connect to the configured server, or start the
 * embedded one, the first time they are called, and return the same one afterwards; a command
 * line run of a PostgreSQL lab never starts Redis. Closing stops whatever was started. Each
 * service has its own lock: a second caller waits for the first start.
 */
public final class Backends implements AutoCloseable {

    private final Path home;
    private final StartupListener listener;
    /**
     * How long closing waits for a start in progress: it is called off at once, and stops what it
     * started itself (a second or so; a server that will not stop takes its ten seconds).
     */
    private static final long CLOSE_WAIT_SECONDS = 15;
    /** The threads starting or reaching a server now, whose waits a call-off interrupts; guarded by itself. */
    private final Set<Thread> starters = new HashSet<>();

    private final ReentrantLock postgresLock = new ReentrantLock();
    private final ReentrantLock redisLock = new ReentrantLock();
    private final ReentrantLock standbyLock = new ReentrantLock();
    private final ReentrantLock sentinelLock = new ReentrantLock();
    private volatile boolean closing;
    private volatile BackendSettings settings;
    /** How long a login to either server may take; null: each server's default (or its URL's). */
    private volatile Duration login;
    private Postgres postgres;
    private Redis redis;
    private PgStandbyPair standbyPair;
    private SentinelTopology sentinels;

    public Backends(BackendSettings settings, Path home, StartupListener listener) {
        this.settings = settings;
        this.home = home;
        this.listener = listener;
    }

    public BackendSettings settings() {
        return settings;
    }

    /**
     * Bounds every login to the servers brought up from now on by {@code bound} ({@code
     * --connect-timeout}; null: each server's default): on a heavily loaded machine a healthy
     * server can take longer than that to let RaceLab in.
     */
    public void loginWithin(Duration bound) {
        this.login = bound;
    }

    /**
     * Switches to other servers. A service whose address changes is closed now (an embedded server
     * stops) and brought up anew on its next use; an unchanged one stays as it is.
     */
    public void use(BackendSettings next) {
        BackendSettings previous = settings;
        settings = next;
        if (!previous.postgres().equals(next.postgres())) {
            postgresLock.lock();
            try {
                closeQuietly(postgres);
                postgres = null;
            } finally {
                postgresLock.unlock();
            }
        }
        if (!previous.redis().equals(next.redis())) {
            redisLock.lock();
            try {
                closeQuietly(redis);
                redis = null;
            } finally {
                redisLock.unlock();
            }
        }
        if (!previous.redis().equals(next.redis())) {
            sentinelLock.lock();
            try {
                closeQuietly(sentinels);
                sentinels = null;
            } finally {
                sentinelLock.unlock();
            }
        }
        if (!previous.postgres().equals(next.postgres()) || !previous.standby().equals(next.standby())) {
            standbyLock.lock();
            try {
                closeQuietly(standbyPair);
                standbyPair = null;
            } finally {
                standbyLock.unlock();
            }
        }
    }

    /** The PostgreSQL server, started or reached now if this is the first call. */
    public Postgres postgres() throws BackendException {
        postgresLock.lock();
        try {
            if (postgres == null) {
                starting(Service.POSTGRES);
                try {
                    if (settings.postgres().isPresent()) {
                        PgAddress address = settings.postgres().get();
                        listener.progress(Service.POSTGRES, StartupListener.Stage.CONNECTING, "Connecting to PostgreSQL at "
                                + address.host() + ":" + address.port() + "…");
                        postgres = Postgres.connect(address, login);
                    } else {
                        postgres = EmbeddedPostgresServer.start(home, listener, () -> closing, login);
                    }
                } finally {
                    started();
                }
                if (closing) {
                    closeQuietly(postgres);
                    postgres = null;
                    throw new BackendException(Service.POSTGRES, "RaceLab is shutting down");
                }
                listener.progress(Service.POSTGRES, StartupListener.Stage.READY, "Ready: " + postgres.describe());
            }
            return postgres;
        } finally {
            postgresLock.unlock();
        }
    }

    /** The Redis server, started or reached now if this is the first call. */
    public Redis redis() throws BackendException {
        redisLock.lock();
        try {
            if (redis == null) {
                starting(Service.REDIS);
                try {
                    if (settings.redis().isPresent()) {
                        RedisAddress address = settings.redis().get();
                        listener.progress(Service.REDIS, StartupListener.Stage.CONNECTING, "Connecting to Redis at "
                                + address.host() + ":" + address.port() + "…");
                        redis = Redis.connect(address, login);
                    } else {
                        redis = EmbeddedRedisServer.start(home, listener, () -> closing, login);
                    }
                } finally {
                    started();
                }
                if (closing) {
                    closeQuietly(redis);
                    redis = null;
                    throw new BackendException(Service.REDIS, "RaceLab is shutting down");
                }
                listener.progress(Service.REDIS, StartupListener.Stage.READY, "Ready: " + redis.describe());
            }
            return redis;
        } finally {
            redisLock.unlock();
        }
    }

    /**
     * RaceLab's own PostgreSQL primary with a hot standby, started now if this is the first call:
     * only with the embedded servers ({@link #refusal}).
     */
    public PgStandbyPair standbyPair() throws BackendException {
        Optional<String> refused = refusal(Service.PG_STANDBY);
        if (refused.isPresent()) {
            throw new BackendException(Service.PG_STANDBY, refused.get());
        }
        standbyLock.lock();
        try {
            if (standbyPair == null) {
                starting(Service.PG_STANDBY);
                try {
                    standbyPair = settings.standby().isPresent()
                            ? PgStandbyPair.named(settings.postgres().orElseThrow(), settings.standby().get(), login)
                            : PgStandbyPair.start(home, listener, () -> closing, login);
                } finally {
                    started();
                }
                if (closing) {
                    closeQuietly(standbyPair);
                    standbyPair = null;
                    throw new BackendException(Service.PG_STANDBY, "RaceLab is shutting down");
                }
                listener.progress(Service.PG_STANDBY, StartupListener.Stage.READY, "Ready: " + standbyPair);
            }
            return standbyPair;
        } finally {
            standbyLock.unlock();
        }
    }

    /**
     * RaceLab's own Redis primary, replica and three Sentinels, started now if this is the first
     * call: only with the embedded servers ({@link #refusal}).
     */
    public SentinelTopology sentinels() throws BackendException {
        Optional<String> refused = refusal(Service.REDIS_SENTINEL);
        if (refused.isPresent()) {
            throw new BackendException(Service.REDIS_SENTINEL, refused.get());
        }
        sentinelLock.lock();
        try {
            if (sentinels == null) {
                starting(Service.REDIS_SENTINEL);
                try {
                    sentinels = SentinelTopology.start(home, listener, () -> closing);
                } finally {
                    started();
                }
                if (closing) {
                    closeQuietly(sentinels);
                    sentinels = null;
                    throw new BackendException(Service.REDIS_SENTINEL, "RaceLab is shutting down");
                }
                listener.progress(Service.REDIS_SENTINEL, StartupListener.Stage.READY, "Ready: " + sentinels);
            }
            return sentinels;
        } finally {
            sentinelLock.unlock();
        }
    }

    /**
     * Why {@code service} cannot be had with the servers chosen now, in one sentence, or empty: a
     * topology RaceLab must start and steer itself (a standby whose replication it holds) cannot be
     * made of servers someone else runs, and RaceLab never reconfigures those.
     */
    public Optional<String> refusal(Service service) {
        if (service == Service.REDIS_SENTINEL && settings.redis().isPresent()) {
            RedisAddress named = settings.redis().get();
            return Optional.of("this lab needs a Redis primary, its replica and Sentinels that RaceLab starts itself "
                    + "(to hold their replication and kill the primary); Redis at " + named.host() + ":" + named.port()
                    + " is a server RaceLab did not start and does not reconfigure: run it on RaceLab's own servers "
                    + "(no --redis-url or " + BackendSettings.REDIS_ENV + ")");
        }
        if (service == Service.PG_STANDBY && settings.postgres().isPresent() && settings.standby().isEmpty()) {
            PgAddress named = settings.postgres().get();
            return Optional.of("this lab needs a PostgreSQL primary with a hot standby: PostgreSQL at " + named.host()
                    + ":" + named.port() + " is one server; name its standby with --pg-standby-url (or "
                    + BackendSettings.PG_STANDBY_ENV + "), or run it on RaceLab's own primary and standby (no --pg-url "
                    + "or " + BackendSettings.PG_ENV + ")");
        }
        if (service == Service.PG_STANDBY && settings.postgres().isEmpty() && settings.standby().isPresent()) {
            return Optional.of("--pg-standby-url (or " + BackendSettings.PG_STANDBY_ENV + ") names a standby, but no "
                    + "primary is named: give its primary with --pg-url, or neither, for RaceLab's own pair");
        }
        return Optional.empty();
    }

    /**
     * Marks the calling thread as starting {@code service}, so that a call-off interrupts its
     * waits; refuses if RaceLab is shutting down. Called holding the service's lock.
     */
    private void starting(Service service) throws BackendException {
        synchronized (starters) {
            if (closing) {
                throw new BackendException(service, "RaceLab is shutting down: " + service.displayName()
                        + " is not started");
            }
            starters.add(Thread.currentThread());
        }
    }

    /** The calling thread's start is over; an interrupt the call-off sent it is spent with it. */
    private void started() {
        synchronized (starters) {
            starters.remove(Thread.currentThread());
            if (closing) {
                Thread.interrupted();
            }
        }
    }

    /**
     * Calls off the starts in progress and refuses new ones, leaving the servers that are up as
     * they are (a signalled command's run still needs its servers to end cleanly): for a process
     * told to end. A start called off stops what it had started and fails with a sentence.
     */
    public void stopStarting() {
        synchronized (starters) {
            closing = true;
            starters.forEach(Thread::interrupt);
        }
    }

    /** Brings up a service; for callers that know only the {@link Service}. */
    public void ensure(Service service) throws BackendException {
        switch (service) {
            case POSTGRES -> postgres();
            case REDIS -> redis();
            case PG_STANDBY -> standbyPair();
            case REDIS_SENTINEL -> sentinels();
        }
    }

    /**
     * Checks that a service that was brought up still answers; one that was never brought up is
     * not started by this.
     *
     * @throws BackendException naming the server and why, if it does not answer
     */
    public void probe(Service service) throws BackendException {
        ReentrantLock lock = lockOf(service);
        AutoCloseable server;
        lock.lock();
        try {
            server = serverOf(service);
        } finally {
            lock.unlock();
        }
        // Probed outside the lock: a dead server may take a connect timeout to say so.
        if (server instanceof Postgres pg) {
            pg.probe();
        } else if (server instanceof Redis rd) {
            rd.probe();
        } else if (server instanceof PgStandbyPair pair) {
            pair.probe();
        } else if (server instanceof SentinelTopology topology) {
            topology.probe();
        }
    }

    private ReentrantLock lockOf(Service service) {
        return switch (service) {
            case POSTGRES -> postgresLock;
            case REDIS -> redisLock;
            case PG_STANDBY -> standbyLock;
            case REDIS_SENTINEL -> sentinelLock;
        };
    }

    /** What serves {@code service} now, or null; called holding its lock. */
    private AutoCloseable serverOf(Service service) {
        return switch (service) {
            case POSTGRES -> postgres;
            case REDIS -> redis;
            case PG_STANDBY -> standbyPair;
            case REDIS_SENTINEL -> sentinels;
        };
    }

    /** What serves each service that is up, without credentials: "embedded PostgreSQL 17.11 on …". */
    public String describe(Service service) {
        ReentrantLock lock = lockOf(service);
        if (!lock.tryLock()) {
            return "starting";
        }
        try {
            Object server = serverOf(service);
            return server == null ? "not started" : server.toString();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What serves each of {@code services}, keyed by the service's lower-case name ("postgres" →
     * "embedded PostgreSQL 17.11 on …"), in a fixed order, for a run's record: never credentials.
     */
    public Map<String, String> describe(Set<Service> services) {
        Map<String, String> described = new LinkedHashMap<>();
        for (Service service : Service.values()) {
            if (services.contains(service)) {
                described.put(service.name().toLowerCase(Locale.ROOT), describe(service));
            }
        }
        return described;
    }

    /**
     * Stops embedded servers and forgets connections. A start in progress is called off first and
     * waited for (at most {@link #CLOSE_WAIT_SECONDS}): it stops what it had started itself. This
     * runs in shutdown hooks too (the window's, on SIGTERM), after which the JVM exits at once: so
     * when it returns, nothing it started runs.
     */
    @Override
    public void close() {
        stopStarting();
        boolean closedPostgres = closeService(postgresLock, () -> {
            closeQuietly(postgres);
            postgres = null;
        });
        boolean closedRedis = closeService(redisLock, () -> {
            closeQuietly(redis);
            redis = null;
        });
        boolean closedStandby = closeService(standbyLock, () -> {
            closeQuietly(standbyPair);
            standbyPair = null;
        });
        boolean closedSentinels = closeService(sentinelLock, () -> {
            closeQuietly(sentinels);
            sentinels = null;
        });
        // Usable again only if no start was left running; that start stops what it starts.
        closing = !(closedPostgres && closedRedis && closedStandby && closedSentinels);
    }

    private static boolean closeService(ReentrantLock lock, Runnable close) {
        try {
            if (lock.tryLock(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                try {
                    close.run();
                    return true;
                } finally {
                    lock.unlock();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
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
