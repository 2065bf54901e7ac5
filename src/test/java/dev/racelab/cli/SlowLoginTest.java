package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.RedisAddress;
import dev.racelab.support.CuttableProxy;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server that is up but slow to answer a login (an overloaded machine), played by a relay that
 * holds back the server's first reply on each connection: RaceLab says the server is slow to
 * answer the login, not that it cannot be reached, and {@code --connect-timeout} sets how long it waits.
 */
@Tag("lab")
class SlowLoginTest {

    /** How late the relay lets each login's first reply through. */
    private static final Duration LATE = Duration.ofSeconds(3);

    private static CliRun cli(String... args) {
        return CliRun.of(TestServers.childEnvironment(), args);
    }

    private static JsonObject json(CliRun result) {
        return JsonParser.parseString(result.out()).getAsJsonObject();
    }

    /** The one line the command printed on standard error. */
    private static String line(CliRun result) {
        assertEquals(1, result.err().size(), result.err().toString());
        return result.err().get(0);
    }

    private static String viaProxy(PgAddress real, CuttableProxy proxy) {
        return real.secretUrl().replace("@" + real.host() + ":" + real.port() + "/", "@127.0.0.1:" + proxy.port() + "/");
    }

    /** What the command said and the relay's port: a one-operation counter run through a slow relay. */
    private record Slow(CliRun result, int port) {
    }

    private static Slow counterThroughASlowPostgres(String connectTimeout) throws Exception {
        PgAddress real = TestServers.postgres().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port())) {
            proxy.holdFirstReplies(LATE);
            return new Slow(cli("run", "counter", "--workers", "1", "--ops", "1", "--pg-url", viaProxy(real, proxy),
                    "--connect-timeout", connectTimeout, "--json"), proxy.port());
        }
    }

    @Test
    void aPostgresSlowerThanTheLoginBoundIsSaidToBeSlowNotUnreachable() throws Exception {
        Slow slow = counterThroughASlowPostgres("1");
        assertEquals(1, slow.result().code(), slow.result().err().toString());
        String line = line(slow.result());
        assertTrue(line.startsWith("racelab: PostgreSQL at 127.0.0.1:" + slow.port()
                + " is slow to answer: it took the connection but did not finish the login within 1 s"), line);
        assertTrue(line.contains("--connect-timeout"), "it says how to wait longer: " + line);
        assertFalse(line.contains("cannot be reached"), line);
        assertEquals("ERROR", json(slow.result()).get("verdict").getAsString(), slow.result().out());
    }

    @Test
    void aLongerLoginBoundLetsTheSlowPostgresServeTheRun() throws Exception {
        Slow slow = counterThroughASlowPostgres("30");
        assertEquals(0, slow.result().code(), slow.result().err().toString());
        assertEquals("SAFE", json(slow.result()).get("verdict").getAsString(), slow.result().out());
    }

    @Test
    void aRedisSlowerThanTheLoginBoundIsSaidToBeSlowNotUnreachable() throws Exception {
        RedisAddress real = TestServers.redis().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port())) {
            proxy.holdFirstReplies(LATE);
            CliRun result = cli("run", "readers-writers", "--redis-url", real.at("127.0.0.1", proxy.port()).secretUrl(), "--connect-timeout", "1", "--json");
            assertEquals(1, result.code(), result.err().toString());
            String line = line(result);
            assertTrue(line.startsWith("racelab: Redis at 127.0.0.1:" + proxy.port()
                    + " is slow to answer: it took the connection but did not finish the login within 1 s"), line);
            assertFalse(line.contains("cannot be reached"), line);
        }
    }

    @Test
    void theLoginBoundIsAWholeNumberOfSecondsWithinReason() {
        CliRun result = cli("run", "counter", "--connect-timeout", "0");
        assertEquals(2, result.code());
        assertEquals(List.of("racelab: --connect-timeout must be from 1 to 300, not 0"), result.err());
    }
}
