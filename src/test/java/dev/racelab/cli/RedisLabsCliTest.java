package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.DataHome;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command-line contract for the Redis labs, in-process against the test servers. */
@Tag("lab")
class RedisLabsCliTest {

    private record Result(int code, String out, String err) {
        JsonObject json() {
            return JsonParser.parseString(out).getAsJsonObject();
        }
    }

    private static Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of(BackendSettings.REDIS_ENV, TestServers.redis().address().secretUrl());
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(Arrays.asList(args));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void naivePhilosophersWithADelayBetweenForksReportTheDeadlockAsJson() {
        Result result = cli("run", "dining-philosophers", "--delay", "between-forks=150", "--timeout", "1",
                "--expect", "DEADLOCK", "--json");
        assertEquals(0, result.code(), result.err());
        JsonObject json = result.json();
        assertEquals("dining-philosophers", json.get("lab").getAsString());
        assertEquals("naive", json.get("strategy").getAsString());
        assertEquals(5, json.get("workers").getAsInt());
        assertEquals("DEADLOCK", json.get("verdict").getAsString());
        assertEquals(1, json.getAsJsonObject("verdicts").get("DEADLOCK").getAsInt());
        assertEquals(5, json.getAsJsonObject("violations").get("deadlocked philosophers").getAsLong());
        assertEquals("5 philosophers in a cycle: philosopher-1 → philosopher-2 → philosopher-3 → philosopher-4 → philosopher-5 → "
                + "philosopher-1", json.get("headline").getAsString());
        assertEquals("between-forks=150 backoff=0-200", json.get("delays").getAsString(), "the preset backoff stays");
        assertTrue(json.get("events").getAsLong() > 0);
        assertTrue(json.getAsJsonObject("backend").get("redis").getAsString().contains("Redis"));
        assertTrue(!json.getAsJsonObject("backend").has("postgres"), "a Redis lab does not start PostgreSQL");
    }

    @Test
    void aFaultGateForOneWorkerIsReachableFromTheCommandLine() {
        // client-2 crashes in its first critical section; the others still want the mutex then (40
        // operations each, a few ms apart), so one of them must reclaim the crashed holder's lease.
        // With 3 operations each they could all be done first on a busy machine, and nobody reclaims.
        Result result = cli("run", "redis-primitives", "--strategy", "hardened-mutex", "--workers", "3", "--ops", "40",
                "--delay", "holder-crashes=1@client-2", "--delay", "before-acquire=2-5@client-1",
                "--delay", "before-acquire=2-5@client-3", "--json");
        assertEquals(0, result.code(), result.err());
        JsonObject json = result.json();
        assertEquals("SAFE", json.get("verdict").getAsString(), json.get("explanation").getAsString());
        assertEquals(1, json.getAsJsonObject("metrics").get("reclaimedLeases").getAsLong());
        assertTrue(json.get("explanation").getAsString().contains("client-2 crashed holding the mutex"));
    }

    @Test
    void listShowsTheRedisLabsWithTheirBrokenDefaults() {
        Result result = cli("list", "--json");
        assertEquals(0, result.code());
        List<String> defaults = result.json().getAsJsonArray("labs").asList().stream()
                .map(lab -> lab.getAsJsonObject().get("id").getAsString() + "=" + lab.getAsJsonObject()
                        .get("defaultStrategy").getAsString()).toList();
        assertTrue(defaults.containsAll(List.of("redis-primitives=article-mutex", "dining-philosophers=naive",
                "readers-writers=reader-preference")), defaults.toString());
    }
}
