package dev.racelab.backend;

import dev.racelab.engine.Service;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A Redis server RaceLab can use: an existing one at an address, or the embedded one it started.
 * Every connection names itself {@code racelab:<name>} ({@code CLIENT SETNAME}), and every key
 * RaceLab touches begins with {@link #KEY_PREFIX}.
 */
public final class Redis implements AutoCloseable {

    /** The prefix of every key RaceLab creates. */
    public static final String KEY_PREFIX = "racelab:";

    /** How long connecting and the handshake (login, name, database) may take, unless {@code --connect-timeout} says. */
    public static final Duration LOGIN_DEFAULT = Duration.ofSeconds(5);

    private final RedisAddress address;
    private final String description;
    private final AutoCloseable server;
    private final int loginMillis;

    private Redis(RedisAddress address, String description, AutoCloseable server, int loginMillis) {
        this.address = address;
        this.description = description;
        this.server = server;
        this.loginMillis = loginMillis;
    }

    /** Connects to an existing server and checks that it answers. */
    public static Redis connect(RedisAddress address) throws BackendException {
        return connect(address, null);
    }

    /** As {@link #connect(RedisAddress)}, every login bounded by {@code login} (null: the default). */
    public static Redis connect(RedisAddress address, Duration login) throws BackendException {
        return open(address, null, "Redis %s at " + address.host() + ":" + address.port(), login);
    }

    static Redis open(RedisAddress address, AutoCloseable server, String descriptionFormat, Duration login)
            throws BackendException {
        int loginMillis = (int) (login == null ? LOGIN_DEFAULT : login).toMillis();
        try (Jedis jedis = open(address, Postgres.APP_PREFIX + "setup", loginMillis, loginMillis)) {
            jedis.ping();
            String version = version(jedis);
            return new Redis(address, String.format(descriptionFormat, version), server, loginMillis);
        } catch (JedisException e) {
            throw explain(address, e);
        }
    }

    /**
     * The server's version: from {@code INFO}, or from {@code HELLO}'s reply for a user that may not
     * ask {@code INFO} (a class's, which may read nothing of the server beyond its own keys).
     */
    private static String version(Jedis jedis) {
        try {
            return jedis.info("server").lines()
                    .filter(line -> line.startsWith("redis_version:"))
                    .map(line -> line.substring("redis_version:".length()).strip())
                    .findFirst().orElse("?");
        } catch (redis.clients.jedis.exceptions.JedisAccessControlException notAllowed) {
            Object reply = jedis.sendCommand(redis.clients.jedis.Protocol.Command.HELLO);
            if (reply instanceof java.util.List<?> fields) {
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    if (fields.get(i) instanceof byte[] key && "version".equals(new String(key,
                            java.nio.charset.StandardCharsets.UTF_8)) && fields.get(i + 1) instanceof byte[] value) {
                        return new String(value, java.nio.charset.StandardCharsets.UTF_8);
                    }
                }
            }
            return "?";
        }
    }

    /**
     * Opens a connection named {@code racelab:<name>}.
     *
     * @param socketTimeoutMillis how long a command may wait for its reply; 0 waits for ever
     *                            (for subscribers and blocking pops)
     */
    public Jedis open(String name, int socketTimeoutMillis) {
        return open(address, Postgres.APP_PREFIX + name, socketTimeoutMillis, loginMillis);
    }

    private static Jedis open(RedisAddress address, String clientName, int socketTimeoutMillis, int loginMillis) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .clientName(clientName)
                .database(address.database())
                .ssl(address.tls())
                .connectionTimeoutMillis(loginMillis)
                // The handshake (login, name, database) is bounded whatever the connection is for:
                // a server that accepts and never answers must not hold a subscriber's open for ever.
                .socketTimeoutMillis(loginMillis);
        if (address.hasPassword()) {
            config.user(address.user()).password(address.password());
        }
        long began = System.nanoTime();
        Jedis jedis = null;
        try {
            // Connects and shakes hands here already (Jedis does it as the connection is made).
            jedis = new Jedis(new HostAndPort(address.host(), address.port()), config.build());
            jedis.connect();
            jedis.getConnection().setSoTimeout(socketTimeoutMillis);
        } catch (JedisConnectionException e) {
            if (jedis != null) {
                jedis.close();
            }
            boolean ranOut = timedOut(e) && System.nanoTime() - began >= TimeUnit.MILLISECONDS.toNanos(loginMillis - 500L);
            if (ranOut && Reasons.takesConnections(address.host(), address.port())) {
                // It took the connection and did not finish the handshake in time: slow, not unreachable.
                throw new SlowLogin(loginMillis / 1000, e);
            }
            throw e;
        } catch (RuntimeException e) {
            if (jedis != null) {
                jedis.close();
            }
            throw e;
        }
        return jedis;
    }

    /** A login that did not finish within its bound on a server that takes connections: slow, not unreachable. */
    static final class SlowLogin extends JedisConnectionException {
        SlowLogin(int seconds, JedisConnectionException cause) {
            super("is slow to answer: it took the connection but did not finish the login within " + seconds
                    + " s (a busy machine, or a stopped server)", cause);
        }
    }

    /** Checks that the server still answers, on a fresh connection: after a run that failed, say, it may have died. */
    public void probe() throws BackendException {
        try (Jedis jedis = open(address, Postgres.APP_PREFIX + "probe", loginMillis, loginMillis)) {
            jedis.ping();
        } catch (JedisException e) {
            throw explain(address, e);
        }
    }

    public RedisAddress address() {
        return address;
    }

    /** What serves Redis, for status bars and summaries: no credentials. */
    public String describe() {
        return description;
    }

    public boolean embedded() {
        return server != null;
    }

    /** A sentence for a failure talking to this server. */
    public String explain(JedisException e) {
        return explain(address, e).getMessage();
    }

    static BackendException explain(RedisAddress address, JedisException e) {
        String where = "Redis at " + address.host() + ":" + address.port();
        String reason = reason(e);
        String message;
        if (e instanceof SlowLogin) {
            message = where + " " + e.getMessage();
        } else if (e instanceof JedisAccessControlException || reason.contains("NOAUTH") || reason.contains("WRONGPASS")) {
            message = where + " refused the login: " + reason;
        } else if (e instanceof JedisConnectionException) {
            message = where + " cannot be reached: " + reason;
        } else {
            message = where + " failed: " + reason;
        }
        return new BackendException(Service.REDIS, message, e);
    }

    /**
     * Whether {@code failure} is this server's connection breaking under a client (a server that
     * stops answering within the client's timeout, one that closes or resets the connection, one
     * that is gone): a sentence naming the server and the cause; empty for any other failure.
     */
    public Optional<String> lostConnection(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof JedisConnectionException e) {
                String where = "Redis at " + address.host() + ":" + address.port();
                if (e instanceof SlowLogin) {
                    return Optional.of(where + " " + e.getMessage());
                }
                return Optional.of(timedOut(e)
                        ? where + " stopped answering: a command got no reply in time"
                        : where + " broke the connection: " + reason(e));
            }
        }
        return Optional.empty();
    }

    /** Whether {@code failure} is a reply that did not come in time. */
    public static boolean timedOut(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static String reason(JedisException e) {
        String reason = Reasons.network(e);
        if (reason != null) {
            return reason;
        }
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    /** Stops the embedded server, if this is one. */
    @Override
    public void close() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
