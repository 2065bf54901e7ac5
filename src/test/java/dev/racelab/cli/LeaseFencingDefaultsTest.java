package dev.racelab.cli;

import com.google.gson.JsonObject;
import dev.racelab.backend.BackendSettings;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code racelab run lease-fencing} with nothing but its defaults, as a class first runs it: two
 * clients, two writes each, client-1 stopping past its lease before every write. Both broken
 * strategies apply a stale write in at least 19 of 20 runs; {@code fenced}, with the very same
 * defaults, is SAFE in all 20 and says it rejected the stale writes. The strategies run side by
 * side (each run mostly waits out its pauses).
 */
@Tag("lab")
class LeaseFencingDefaultsTest {

    private static final int RUNS = 20;

    @Test
    void aClientPausedPastItsLeaseWritesOverTheNextHolderAndTheFencedWriteRejectsIt() {
        Map<String, String> env = Map.of(BackendSettings.PG_ENV, TestServers.postgres().address().secretUrl(),
                BackendSettings.REDIS_ENV, TestServers.redis().address().secretUrl());
        List<JsonObject> results = DefaultsRuns.all(env, "lease-fencing",
                List.of("lease-only", "lease-check-owner", "fenced"), RUNS);
        JsonObject leaseOnly = results.get(0);
        assertEquals("pause-before-write=300@client-1 before-acquire=200@client-2", leaseOnly.get("delays").getAsString(),
                "the preset pause, and client-2's time between writes");
        assertEquals(2, leaseOnly.get("workers").getAsInt(), "few enough clients to follow");
        assertEquals(2, leaseOnly.get("ops").getAsInt());
        for (JsonObject broken : results.subList(0, 2)) {
            int races = DefaultsRuns.count(broken, "RACE");
            assertTrue(races >= 19, broken.get("strategy").getAsString() + " raced in " + races + " of " + RUNS + ": "
                    + broken.get("verdicts") + " " + broken.get("headline"));
            assertTrue(broken.getAsJsonObject("violations").get("stale writes applied").getAsInt() >= races,
                    "every race is a stale write applied: " + broken.get("violations"));
        }
        JsonObject fenced = results.get(2);
        assertEquals(RUNS, DefaultsRuns.count(fenced, "SAFE"), fenced.get("verdicts") + " " + fenced.get("headline"));
        JsonObject metrics = fenced.getAsJsonObject("metrics");
        assertTrue(metrics.get("rejectedWrites").getAsInt() >= 1, "the stale writes were rejected: " + metrics);
        assertEquals(0, metrics.get("staleWritesApplied").getAsInt());
        assertEquals(fenced.get("headline").getAsString(), metrics.get("rejectedWrites").getAsInt() + " stale write"
                + (metrics.get("rejectedWrites").getAsInt() == 1 ? "" : "s") + " rejected");
    }
}
