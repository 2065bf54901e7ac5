package dev.racelab.backend;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Where a Redis server is and how to log in: {@code redis://[user:secret@]host[:port][/db]},
 * {@code rediss://…} for TLS, or a bare {@code host:port}. The password stays out of every
 * description.
 */
public final class RedisAddress {

    public static final int DEFAULT_PORT = 6379;

    private final String host;
    private final int port;
    private final int database;
    private final String user;
    private final String password;
    private final boolean tls;

    public RedisAddress(String host, int port, int database, String user, String password, boolean tls) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.user = user;
        this.password = password;
        this.tls = tls;
    }

    /**
     * Parses a Redis URL.
     *
     * @throws IllegalArgumentException with a message saying what is wrong
     */
    public static RedisAddress parse(String url) {
        String text = url.strip();
        boolean tls = text.startsWith("rediss://");
        if (!text.contains("://")) {
            text = "redis://" + text;
        } else if (!text.startsWith("redis://") && !tls) {
            throw new IllegalArgumentException("a Redis address starts with redis:// (for example redis://localhost:6379)");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("the Redis address is not a valid URL: " + e.getReason());
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            throw new IllegalArgumentException("the Redis address names no host");
        }
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String info = uri.getRawUserInfo();
            int colon = info.indexOf(':');
            if (colon < 0) {
                password = decode(info);
            } else {
                user = colon == 0 ? null : decode(info.substring(0, colon));
                password = decode(info.substring(colon + 1));
            }
        }
        int database = 0;
        String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
        if (!path.isBlank()) {
            if (!path.matches("[0-9]{1,9}")) {
                throw new IllegalArgumentException("the Redis database must be a number, not '" + path + "'");
            }
            database = Integer.parseInt(path);
        }
        int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
        if (port < 1 || port > PgAddress.MAX_PORT) {
            throw new IllegalArgumentException("the Redis port must be from 1 to " + PgAddress.MAX_PORT + ", not " + port);
        }
        return new RedisAddress(uri.getHost(), port, database, user, password, tls);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public int database() {
        return database;
    }

    public String user() {
        return user;
    }

    /** The password, for the client configuration only. */
    String password() {
        return password;
    }

    public boolean tls() {
        return tls;
    }

    public boolean hasPassword() {
        return password != null && !password.isEmpty();
    }

    /** The address as messages show it: {@code host:port/db}. */
    public String describe() {
        return (user == null ? "" : user + "@") + host + ":" + port + (database == 0 ? "" : "/" + database);
    }

    /** The full URL including the password: only for settings the user asked to keep. */
    public String secretUrl() {
        String auth = hasPassword() ? (user == null ? "" : user) + ":" + password + "@" : "";
        return (tls ? "rediss://" : "redis://") + auth + host + ":" + port + "/" + database;
    }

    /** The same login, database and TLS at {@code otherHost}:{@code otherPort} (a relay in front of this server). */
    public RedisAddress at(String otherHost, int otherPort) {
        return new RedisAddress(otherHost, otherPort, database, user, password, tls);
    }

    public RedisAddress withoutPassword() {
        return new RedisAddress(host, port, database, user, null, tls);
    }

    @Override
    public String toString() {
        return (tls ? "rediss://" : "redis://") + (hasPassword() ? (user == null ? "" : user) + ":***@" : "")
                + host + ":" + port + "/" + database;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
