package dev.racelab.cli;

import com.google.gson.JsonObject;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The counter and fencing labs' defaults on the command line, as a class first runs them:
 * {@code racelab run counter} (or {@code fencing}) with nothing else shows the race in at least
 * 19 of 20 runs, small enough to read, and every fix with the very same defaults is SAFE 20 of
 * 20. The strategies of a lab run side by side (each run mostly waits on PostgreSQL and its
 * preset pause).
 */
@Tag("lab")
class CounterFencingDefaultsTest {

    private static final int RUNS = 20;

    /** Runs every strategy of {@code lab} with its defaults, broken one first; checks the verdicts. */
    private static List<JsonObject> defaultsOf(String lab, List<String> strategies, int broken) {
        List<JsonObject> results = DefaultsRuns.all(TestServers.childEnvironment(), lab, strategies, RUNS);
        for (int i = 0; i < strategies.size(); i++) {
            JsonObject result = results.get(i);
            assertEquals(RUNS, result.get("runs").getAsInt());
            if (i < broken) {
                int races = DefaultsRuns.count(result, "RACE");
                assertTrue(races >= 19, lab + " " + strategies.get(i) + " raced in " + races + " of " + RUNS + ": "
                        + result.get("verdicts"));
            } else {
                assertEquals(RUNS, DefaultsRuns.count(result, "SAFE"), lab + " " + strategies.get(i) + ": " + result.get("verdicts")
                        + " " + result.get("headline") + " " + result.get("explanation"));
            }
        }
        return results;
    }

    @Test
    void counterLosesIncrementsByDefaultAndEveryFixCountsThemWithTheSameDefaults() {
        List<JsonObject> results = defaultsOf("counter",
                List.of("read-modify-write", "atomic-update", "select-for-update", "serializable-retry"), 1);
        JsonObject broken = results.get(0);
        assertEquals("before-read=0-100 after-read=10-30", broken.get("delays").getAsString(), "the preset pause");
        assertEquals(4, broken.get("workers").getAsInt(), "few enough clients to follow each lost update");
        assertEquals(5, broken.get("ops").getAsInt());
        for (JsonObject fix : results.subList(1, results.size())) {
            assertEquals(20, fix.getAsJsonObject("metrics").get("finalValue").getAsInt(), "four clients, five each");
        }
    }

    @Test
    void fencingAppliesStaleWritesByDefaultAndFencedCasRejectsThemWithTheSameDefaults() {
        List<JsonObject> results = defaultsOf("fencing", List.of("blind-write", "check-then-write", "fenced-cas"), 2);
        JsonObject broken = results.get(0);
        assertEquals("after-check=0-40", broken.get("delays").getAsString(), "the preset pause");
        assertEquals(4, broken.get("workers").getAsInt());
        assertEquals(5, broken.get("ops").getAsInt());
        assertEquals(0, results.get(2).getAsJsonObject("metrics").get("staleWritesApplied").getAsInt());
    }
}
