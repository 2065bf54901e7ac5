package dev.racelab.backend;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Where a PostgreSQL server is and how to log in, parsed from the URL a user types.
 *
 * <p>Accepts libpq URIs ({@code postgresql://user:secret@host:5432/db}, also {@code postgres://})
 * and JDBC URLs ({@code jdbc:postgresql://host/db?user=u&password=p}). The password is kept out of
 * {@link #toString()}, {@link #describe()} and the JDBC URL: it travels only in the connection
 * properties.
 */
public final class PgAddress {

    public static final int DEFAULT_PORT = 5432;
    static final int MAX_PORT = 65_535;
    /** What {@code sslmode} may be, as libpq and the JDBC driver read it. */
    private static final List<String> SSL_MODES = List.of("disable", "allow", "prefer", "require", "verify-ca",
            "verify-full");

    private final String host;
    private final int port;
    private final String database;
    private final String user;
    private final String password;
    private final Map<String, String> parameters;

    public PgAddress(String host, int port, String database, String user, String password,
                     Map<String, String> parameters) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.user = user;
        this.password = password;
        this.parameters = Map.copyOf(parameters);
    }

    /**
     * Parses a PostgreSQL URL.
     *
     * @throws IllegalArgumentException with a message saying what is wrong (never echoing a password)
     */
    public static PgAddress parse(String url) {
        String text = url.strip();
        String rest;
        if (text.startsWith("jdbc:postgresql://")) {
            rest = text.substring("jdbc:postgresql://".length());
        } else if (text.startsWith("postgresql://")) {
            rest = text.substring("postgresql://".length());
        } else if (text.startsWith("postgres://")) {
            rest = text.substring("postgres://".length());
        } else {
            throw new IllegalArgumentException("a PostgreSQL address starts with postgresql:// "
                    + "(for example postgresql://user@localhost:5432/mydb)");
        }
        URI uri;
        try {
            uri = new URI("postgresql://" + rest);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("the PostgreSQL address is not a valid URL: " + e.getReason());
        }
        String host = uri.getHost();
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("the PostgreSQL address names no host");
        }
        int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
        if (port < 1 || port > MAX_PORT) {
            throw new IllegalArgumentException("the PostgreSQL port must be from 1 to " + MAX_PORT + ", not " + port);
        }
        Map<String, String> params = query(uri.getRawQuery());
        String sslmode = params.get("sslmode");
        if (sslmode != null && !SSL_MODES.contains(sslmode)) {
            // The driver would only warn, on two lines of its own, and then refuse to connect.
            throw new IllegalArgumentException("sslmode must be one of " + String.join(", ", SSL_MODES) + ", not '"
                    + sslmode + "'");
        }
        String user = params.remove("user");
        String password = params.remove("password");
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            if (colon >= 0) {
                password = decode(userInfo.substring(colon + 1));
            }
        }
        if (user == null || user.isBlank()) {
            user = System.getProperty("user.name");
        }
        String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
        String database = path.isBlank() ? user : decode(path);
        return new PgAddress(host, port, database, user, password, params);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String database() {
        return database;
    }

    public String user() {
        return user;
    }

    public boolean hasPassword() {
        return password != null && !password.isEmpty();
    }

    /** The JDBC URL without user or password. */
    public String jdbcUrl() {
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return "jdbc:postgresql://" + h + ":" + port + "/" + database;
    }

    /** Connection properties: credentials and the URL's own parameters. */
    public Properties properties() {
        Properties props = new Properties();
        parameters.forEach(props::setProperty);
        props.setProperty("user", user);
        if (password != null) {
            props.setProperty("password", password);
        }
        return props;
    }

    /** The address as messages show it: {@code user@host:port/database}, no password. */
    public String describe() {
        return user + "@" + host + ":" + port + "/" + database;
    }

    /** The address as a URL a user can paste back, with the password left out. */
    public String redactedUrl() {
        return "postgresql://" + user + (hasPassword() ? ":***" : "") + "@" + host + ":" + port + "/" + database;
    }

    /** The full URL including the password: only for settings the user asked to keep. */
    public String secretUrl() {
        StringBuilder url = new StringBuilder("postgresql://").append(encode(user));
        if (hasPassword()) {
            url.append(':').append(encode(password));
        }
        url.append('@').append(host).append(':').append(port).append('/').append(encode(database));
        return url.toString();
    }

    /** The same server and login, another database on it. */
    public PgAddress withDatabase(String other) {
        return new PgAddress(host, port, other, user, password, parameters);
    }

    /** The same server and connection settings, logging in as {@code otherUser} with {@code otherPassword}. */
    public PgAddress withLogin(String otherUser, String otherPassword) {
        return new PgAddress(host, port, database, otherUser, otherPassword, parameters);
    }

    /** A copy without the password. */
    public PgAddress withoutPassword() {
        return new PgAddress(host, port, database, user, null, parameters);
    }

    @Override
    public String toString() {
        return redactedUrl();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> params = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return params;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                params.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
            }
        }
        return params;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    private static String encode(String text) {
        return java.net.URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
