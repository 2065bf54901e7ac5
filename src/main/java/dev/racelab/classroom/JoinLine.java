package dev.racelab.classroom;

import dev.racelab.backend.PgAddress;
import dev.racelab.backend.RedisAddress;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * What a student types or scans to join a class: {@code racelab://CODE:SECRET@HOST:PGPORT/?redis=HOST:PORT}.
 * It names the class, the servers and the class's own password; the class's login and user are named
 * by its code ({@link ClassCode}). It carries nothing of the servers' administrators'.
 */
public record JoinLine(ClassCode code, String secret, String pgHost, int pgPort, String redisHost, int redisPort) {

    private static final String SCHEME = "racelab";

    public JoinLine {
        if (secret == null || !secret.matches("[A-Za-z0-9_-]{8,64}")) {
            throw new IllegalArgumentException("the class's password is missing or not one RaceLab makes");
        }
    }

    /**
     * Reads a line as a student pasted it.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static JoinLine parse(String text) {
        String line = text == null ? "" : text.strip();
        // As the host's command line prints it: "join racelab://…", copied whole.
        if (line.startsWith("join ")) {
            line = line.substring("join ".length()).strip();
        }
        URI uri;
        try {
            uri = new URI(line);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + shown(line) + "' is not a join line: it should look like "
                    + "racelab://CODE:PASSWORD@HOST:PORT/?redis=HOST:PORT");
        }
        if (!SCHEME.equals(uri.getScheme()) || uri.getRawUserInfo() == null || uri.getHost() == null
                || uri.getPort() < 1) {
            throw new IllegalArgumentException("'" + shown(line) + "' is not a join line: it should look like "
                    + "racelab://CODE:PASSWORD@HOST:PORT/?redis=HOST:PORT");
        }
        String[] info = uri.getRawUserInfo().split(":", 2);
        if (info.length != 2) {
            throw new IllegalArgumentException("the join line has no class password");
        }
        String redis = Optional.ofNullable(uri.getRawQuery()).filter(q -> q.startsWith("redis="))
                .map(q -> q.substring("redis=".length()))
                .orElseThrow(() -> new IllegalArgumentException("the join line does not say where the class's Redis is"));
        int colon = redis.lastIndexOf(':');
        int redisPort;
        try {
            redisPort = Integer.parseInt(redis.substring(colon + 1));
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException("the join line's Redis '" + shown(redis) + "' has no port");
        }
        if (colon < 1 || redisPort < 1 || redisPort > 65_535) {
            throw new IllegalArgumentException("the join line's Redis '" + shown(redis) + "' is not HOST:PORT");
        }
        return new JoinLine(ClassCode.typed(info[0]), info[1], uri.getHost(), uri.getPort(),
                redis.substring(0, colon), redisPort);
    }

    /** Where the participant's PostgreSQL sessions go: the class's login, in its database. */
    public PgAddress postgres() {
        return new PgAddress(pgHost, pgPort, code.pgName(), code.pgName(), secret, java.util.Map.of());
    }

    /** Where the participant's Redis connections go: the class's user. */
    public RedisAddress redis() {
        return new RedisAddress(redisHost, redisPort, 0, code.redisUser(), secret, false);
    }

    /** The line, password and all: for the students, never for a log. */
    public String text() {
        return SCHEME + "://" + code + ":" + secret + "@" + host(pgHost) + ":" + pgPort + "/?redis="
                + host(redisHost) + ":" + redisPort;
    }

    private static String host(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /** Part of what a student typed, in a message: never the password. */
    private static String shown(String text) {
        String noSecret = text.replaceAll("(?<=://[^:@/]{1,40}:)[^@]*(?=@)", "…");
        return noSecret.length() > 80 ? noSecret.substring(0, 80) + "…" : noSecret;
    }

    @Override
    public String toString() {
        return "class " + code + " at " + pgHost + ":" + pgPort;
    }
}
