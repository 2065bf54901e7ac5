package dev.racelab.cli;

import com.google.gson.JsonObject;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job queue's defaults on the command line, as a class first runs them: {@code racelab run
 * job-queue} with nothing else sends some job twice in at least 19 of 20 runs, with few enough
 * consumers and jobs to follow (four consumers, 32 jobs), and both claims send each job exactly
 * once with the very same defaults, 20 of 20.
 */
@Tag("lab")
class JobQueueDefaultsTest {

    private static final int RUNS = 20;

    @Test
    void selectThenUpdateSendsDuplicatesByDefaultAndBothClaimsSendEachJobOnceWithTheSameDefaults() {
        // Each strategy's twenty runs in two batches side by side: a run mostly sleeps.
        List<JsonObject> halves = DefaultsRuns.halves(TestServers.childEnvironment(), "job-queue",
                List.of("select-then-update", "request-token", "skip-locked"), RUNS);

        JsonObject broken = halves.get(0);
        int races = DefaultsRuns.count(broken, "RACE") + DefaultsRuns.count(halves.get(1), "RACE");
        assertTrue(races >= 19, "select-then-update raced in " + races + " of " + RUNS + ": " + broken.get("verdicts")
                + " " + halves.get(1).get("verdicts"));
        assertEquals("before-take=20-100", broken.get("delays").getAsString(), "the preset pause");
        assertEquals(5, broken.get("workers").getAsInt(), "the producer and four consumers");
        assertEquals(2, broken.get("ops").getAsInt(), "two rounds of a batch of four each: 32 jobs");
        assertEquals(32, broken.getAsJsonObject("metrics").get("jobs").getAsInt());
        for (JsonObject fix : halves.subList(2, halves.size())) {
            assertEquals(RUNS / 2, DefaultsRuns.count(fix, "SAFE"), fix.get("strategy") + ": " + fix.get("verdicts")
                    + " " + fix.get("headline") + " " + fix.get("explanation"));
            assertEquals(32, fix.getAsJsonObject("metrics").get("emailsSent").getAsInt(), "each job once");
        }
    }
}
