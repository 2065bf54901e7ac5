package dev.racelab.backend;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("engine")
class AddressTest {

    @Test
    void readsLibpqAndJdbcPostgresUrls() {
        PgAddress libpq = PgAddress.parse("postgresql://alice:s3cret@db.example:6543/shop");
        assertEquals("db.example", libpq.host());
        assertEquals(6543, libpq.port());
        assertEquals("shop", libpq.database());
        assertEquals("alice", libpq.user());
        assertEquals("jdbc:postgresql://db.example:6543/shop", libpq.jdbcUrl());
        assertEquals("s3cret", libpq.properties().getProperty("password"));

        PgAddress jdbc = PgAddress.parse("jdbc:postgresql://localhost/test?user=bob&password=pw&sslmode=disable");
        assertEquals(5432, jdbc.port());
        assertEquals("bob", jdbc.user());
        assertEquals("disable", jdbc.properties().getProperty("sslmode"));
        assertFalse(jdbc.jdbcUrl().contains("pw"));
    }

    @Test
    void neverShowsThePassword() {
        PgAddress pg = PgAddress.parse("postgres://alice:s3cret@db:5432/shop");
        for (String shown : new String[] {pg.toString(), pg.describe(), pg.jdbcUrl(), pg.redactedUrl()}) {
            assertFalse(shown.contains("s3cret"), shown);
        }
        RedisAddress redis = RedisAddress.parse("redis://:s3cret@cache:6380/2");
        assertEquals(6380, redis.port());
        assertEquals(2, redis.database());
        assertFalse(redis.toString().contains("s3cret"));
        assertFalse(redis.describe().contains("s3cret"));
    }

    @Test
    void explainsWhatIsWrongWithAnAddress() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PgAddress.parse("mysql://x"))
                .getMessage().contains("starts with postgresql://"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PgAddress.parse("postgresql:///db"))
                .getMessage().contains("no host"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RedisAddress.parse("redis://h:6379/abc"))
                .getMessage().contains("must be a number"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> BackendSettings.resolve(null, null, Map.of(BackendSettings.PG_ENV, "nonsense")))
                .getMessage().startsWith(BackendSettings.PG_ENV));
    }

    @Test
    void explicitAddressesWinOverTheEnvironmentWhichWinsOverEmbedded() {
        Map<String, String> env = Map.of(BackendSettings.PG_ENV, "postgresql://env@h1/db",
                BackendSettings.REDIS_ENV, "redis://h2:7000");
        BackendSettings fromEnv = BackendSettings.resolve(null, null, env);
        assertEquals("h1", fromEnv.postgres().orElseThrow().host());
        assertEquals(7000, fromEnv.redis().orElseThrow().port());
        BackendSettings explicit = BackendSettings.resolve("postgresql://flag@h3/db", null, env);
        assertEquals("h3", explicit.postgres().orElseThrow().host());
        assertTrue(BackendSettings.resolve(null, null, Map.of()).postgres().isEmpty());
    }
}
