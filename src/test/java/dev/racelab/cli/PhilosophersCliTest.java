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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dining philosophers' defaults on the command line, as a class would first run them:
 * {@code racelab run dining-philosophers} with nothing else deadlocks (the preset dawdle between
 * the forks), and each fix with the very same defaults eats every meal. Twenty runs of each
 * strategy, the four strategies side by side (each run mostly sleeps and waits on Redis).
 */
@Tag("lab")
class PhilosophersCliTest {

    private static final int RUNS = 20;

    private static JsonObject runs(String strategy) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of(BackendSettings.REDIS_ENV, TestServers.redis().address().secretUrl());
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(List.of("run", "dining-philosophers", "--strategy", strategy, "--runs", String.valueOf(RUNS),
                        "--json"));
        assertEquals(0, code, strategy + ": " + err.toString(StandardCharsets.UTF_8));
        return JsonParser.parseString(out.toString(StandardCharsets.UTF_8)).getAsJsonObject();
    }

    private static int count(JsonObject json, String verdict) {
        JsonObject verdicts = json.getAsJsonObject("verdicts");
        return verdicts.has(verdict) ? verdicts.get(verdict).getAsInt() : 0;
    }

    @Test
    void theDefaultsDeadlockNaiveAndEveryFixEatsWithTheSameDefaults() {
        List<String> strategies = List.of("naive", "ordered", "waiter", "try-backoff");
        List<CompletableFuture<JsonObject>> going = strategies.stream()
                .map(strategy -> CompletableFuture.supplyAsync(() -> runs(strategy))).toList();
        List<JsonObject> results = going.stream().map(CompletableFuture::join).toList();

        JsonObject naive = results.get(0);
        assertEquals(RUNS, naive.get("runs").getAsInt());
        assertEquals("between-forks=100 backoff=0-200", naive.get("delays").getAsString(), "the preset delays");
        int deadlocks = count(naive, "DEADLOCK");
        assertTrue(deadlocks >= 19, "naive deadlocked in " + deadlocks + " of " + RUNS + ": " + naive.get("verdicts"));
        assertEquals(5, naive.get("workers").getAsInt(), "a table small enough to read");
        assertEquals(3, naive.get("ops").getAsInt());
        for (int i = 1; i < strategies.size(); i++) {
            JsonObject fix = results.get(i);
            assertEquals(RUNS, count(fix, "SAFE"), strategies.get(i) + ": " + fix.get("verdicts") + " "
                    + fix.get("headline") + " " + fix.get("explanation"));
            assertEquals(15, fix.getAsJsonObject("metrics").get("meals").getAsInt(), "five philosophers, three meals each");
        }
        System.out.printf("[philosophers] defaults, %d runs each: %s%n", RUNS, results.stream()
                .map(r -> r.get("strategy").getAsString() + " " + r.get("verdicts") + " in " + r.get("elapsedMs") + " ms")
                .toList());
    }
}
