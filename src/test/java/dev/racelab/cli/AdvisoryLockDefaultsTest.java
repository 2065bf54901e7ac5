package dev.racelab.cli;

import com.google.gson.JsonObject;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code racelab run advisory-lock} with nothing but its defaults, as a class first runs it: eight
 * workers, three requests each, two pooled connections, the preset delays before each lock and
 * each unlock. session-pooled leaves a lock behind in a connection no worker owns (STUCK) in at
 * least 19 of 20 runs; session-pinned and xact-lock, with the very same defaults, are SAFE in all
 * 20, with nothing left in pg_locks, each request served or given up (on a busy machine a worker
 * refused for its whole patience gives a request up, as any client would: how many is the machine's).
 */
@Tag("lab")
class AdvisoryLockDefaultsTest {

    private static final int RUNS = 20;

    @Test
    void thePooledSessionLockIsLeftBehindByDefaultAndBothFixesAreSafeWithTheSameDefaults() {
        // Each strategy's twenty runs in two batches side by side: a run mostly waits.
        List<JsonObject> halves = DefaultsRuns.halves(TestServers.childEnvironment(), "advisory-lock",
                List.of("session-pooled", "session-pinned", "xact-lock"), RUNS);

        JsonObject broken = halves.get(0);
        int stuck = DefaultsRuns.count(broken, "STUCK") + DefaultsRuns.count(halves.get(1), "STUCK");
        assertTrue(stuck >= 19, "session-pooled left a lock behind in " + stuck + " of " + RUNS + ": "
                + broken.get("verdicts") + " " + halves.get(1).get("verdicts"));
        assertEquals("before-lock=0-20 before-unlock=0-20", broken.get("delays").getAsString(), "the preset delays");
        assertEquals(8, broken.get("workers").getAsInt());
        assertEquals(3, broken.get("ops").getAsInt());
        assertEquals(2, broken.getAsJsonObject("metrics").get("poolSize").getAsInt());
        assertTrue(broken.get("headline").getAsString().matches("advisory lock -?[0-9]+ orphaned in pool-[0-9]+"),
                broken.get("headline").getAsString());
        for (JsonObject fix : halves.subList(2, halves.size())) {
            assertEquals(RUNS / 2, DefaultsRuns.count(fix, "SAFE"), fix.get("strategy") + ": " + fix.get("verdicts")
                    + " " + fix.get("headline") + " " + fix.get("explanation"));
            JsonObject metrics = fix.getAsJsonObject("metrics");
            assertEquals(0, metrics.get("orphanedLocks").getAsInt());
            assertEquals(metrics.get("acquisitions").getAsInt(), metrics.get("workDone").getAsInt(),
                    "the work done once under each lock granted: " + metrics);
            // How many a worker gives up, refused for its whole patience, depends on the machine's speed.
            assertEquals(8 * 3, metrics.get("acquisitions").getAsInt() + metrics.get("requestsGivenUp").getAsInt(),
                    "each of the 24 requests served or given up, none lost: " + metrics);
            assertTrue(metrics.get("acquisitions").getAsInt() >= 1, "requests served: " + metrics);
        }
    }
}
