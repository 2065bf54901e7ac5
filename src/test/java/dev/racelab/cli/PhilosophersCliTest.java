package dev.racelab.cli;

import com.google.gson.JsonObject;
import dev.racelab.backend.BackendSettings;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

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
        return DefaultsRuns.runs(Map.of(BackendSettings.REDIS_ENV, TestServers.redis().address().secretUrl()),
                "dining-philosophers", strategy, RUNS);
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
        int deadlocks = DefaultsRuns.count(naive, "DEADLOCK");
        assertTrue(deadlocks >= 19, "naive deadlocked in " + deadlocks + " of " + RUNS + ": " + naive.get("verdicts"));
        assertEquals(5, naive.get("workers").getAsInt(), "a table small enough to read");
        assertEquals(3, naive.get("ops").getAsInt());
        for (int i = 1; i < strategies.size(); i++) {
            JsonObject fix = results.get(i);
            assertEquals(RUNS, DefaultsRuns.count(fix, "SAFE"), strategies.get(i) + ": " + fix.get("verdicts") + " "
                    + fix.get("headline") + " " + fix.get("explanation"));
            assertEquals(15, fix.getAsJsonObject("metrics").get("meals").getAsInt(), "five philosophers, three meals each");
        }
        System.out.printf("[philosophers] defaults, %d runs each: %s%n", RUNS, results.stream()
                .map(r -> r.get("strategy").getAsString() + " " + r.get("verdicts") + " in " + r.get("elapsedMs") + " ms")
                .toList());
    }
}
