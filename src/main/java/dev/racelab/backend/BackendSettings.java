package dev.racelab.backend;

import java.util.Map;
import java.util.Optional;

/**
 * Which servers to use. Each service resolves in this order: an explicit address (a flag, the
 * connection dialog), then {@code RACELAB_PG_URL} / {@code RACELAB_REDIS_URL}, then RaceLab's own
 * embedded server.
 *
 * @param postgres an existing PostgreSQL, or empty for the embedded one
 * @param redis    an existing Redis, or empty for the embedded one
 * @param standby  a hot standby of {@code postgres}, for the labs about replication ({@code
 *                 --pg-standby-url}, {@value #PG_STANDBY_ENV}); empty: RaceLab's own pair, or none
 */
public record BackendSettings(Optional<PgAddress> postgres, Optional<RedisAddress> redis,
                              Optional<PgAddress> standby) {

    public static final String PG_ENV = "RACELAB_PG_URL";
    public static final String REDIS_ENV = "RACELAB_REDIS_URL";
    public static final String PG_STANDBY_ENV = "RACELAB_PG_STANDBY_URL";

    /** Settings without a named standby. */
    public BackendSettings(Optional<PgAddress> postgres, Optional<RedisAddress> redis) {
        this(postgres, redis, Optional.empty());
    }

    public static BackendSettings embedded() {
        return new BackendSettings(Optional.empty(), Optional.empty());
    }

    /**
     * Resolves explicit URLs (null where not given) against the environment.
     *
     * @throws IllegalArgumentException naming the URL that does not parse and why
     */
    public static BackendSettings resolve(String pgUrl, String redisUrl, Map<String, String> env) {
        String pg = firstNonBlank(pgUrl, env.get(PG_ENV));
        String redis = firstNonBlank(redisUrl, env.get(REDIS_ENV));
        return new BackendSettings(
                Optional.ofNullable(pg).map(url -> parse(url, pgUrl != null ? "--pg-url" : PG_ENV, true))
                        .map(PgAddress.class::cast),
                Optional.ofNullable(redis).map(url -> parse(url, redisUrl != null ? "--redis-url" : REDIS_ENV, false))
                        .map(RedisAddress.class::cast));
    }

    public BackendSettings withPostgres(Optional<PgAddress> address) {
        return new BackendSettings(address, redis, standby);
    }

    public BackendSettings withRedis(Optional<RedisAddress> address) {
        return new BackendSettings(postgres, address, standby);
    }

    /**
     * With the hot standby {@code url} names (null: {@value #PG_STANDBY_ENV}, else none).
     *
     * @throws IllegalArgumentException naming the URL that does not parse and why
     */
    public BackendSettings withStandby(String url, Map<String, String> env) {
        String named = firstNonBlank(url, env.get(PG_STANDBY_ENV));
        return new BackendSettings(postgres, redis, Optional.ofNullable(named)
                .map(u -> (PgAddress) parse(u, url != null ? "--pg-standby-url" : PG_STANDBY_ENV, true)));
    }

    private static Object parse(String url, String source, boolean postgres) {
        try {
            return postgres ? PgAddress.parse(url) : RedisAddress.parse(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
    }

    private static String firstNonBlank(String a, String b) {
        if (a != null && !a.isBlank()) {
            return a;
        }
        return b != null && !b.isBlank() ? b : null;
    }
}
