package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lab files RaceLab ships, run from the command line on real servers: each race shows with
 * the file's defaults, each fix holds, and a run leaves no key of its own behind. (Twenty runs of
 * each, the measure, are in the note that came with them; here two, to stay quick.)
 */
@Tag("lab")
class LabFileRunsTest {

    private static final Path FOLDER = Path.of("src/main/resources/dev/racelab/labfiles");
    /** Runs of a broken strategy: the race shows in most; one is enough for a fix, which holds in every run. */
    private static final int RUNS = 2;

    private static CliRun run(String... args) {
        return CliRun.onTestServers(args);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "counter, read_modify_write, RACE", "counter, atomic_update, SAFE", "counter, select_for_update, SAFE",
            "counter, serializable_retry, SAFE",
            "fencing, check_then_write, RACE", "fencing, fenced_cas, SAFE",
            "lease-lock, lease_only, RACE", "lease-lock, fenced, SAFE",
            "unique-signup, check_then_insert, RACE", "unique-signup, on_conflict, SAFE",
            "redis-counter, get_set, RACE", "redis-counter, incr, SAFE", "redis-counter, watch_multi, SAFE"})
    void theRaceShowsWithTheDefaultsAndEachFixHolds(String file, String strategy, String expected) {
        CliRun run = run("run", FOLDER.resolve(file + ".lab").toString(), "--strategy", strategy,
                "--runs", expected.equals("SAFE") ? "1" : String.valueOf(RUNS), "--json");
        assertEquals(0, run.code(), run.err().toString());
        JsonObject verdicts = JsonParser.parseString(run.out()).getAsJsonObject().getAsJsonObject("verdicts");
        int matching = verdicts.has(expected) ? verdicts.get(expected).getAsInt() : 0;
        if (expected.equals("SAFE")) {
            assertEquals(1, matching, "a fix holds: " + verdicts);
        } else {
            // A race is a race: most runs show it, and none may end in an error.
            assertTrue(matching >= 1 && !verdicts.has("ERROR"), "the race shows: " + verdicts);
        }
    }

    @Test
    void theDocumentsFirstExampleRacesAndItsFixesHold(@TempDir Path dir) throws Exception {
        String doc = Files.readString(Path.of("docs/lab-format.md"));
        Path file = Files.writeString(dir.resolve("counter.lab"), doc.split("```")[1]);
        for (String strategy : new String[] {"read_then_write", "atomic", "row_lock"}) {
            CliRun run = run("run", file.toString(), "--strategy", strategy, "--json");
            assertEquals(0, run.code(), run.err().toString());
            String verdict = JsonParser.parseString(run.out()).getAsJsonObject().get("verdict").getAsString();
            assertEquals(strategy.equals("read_then_write") ? "RACE" : "SAFE", verdict, strategy + ": " + run.out());
        }
    }

    @Test
    void anUnknownStrategyIsRefusedNamingIt() {
        CliRun run = run("run", FOLDER.resolve("counter.lab").toString(), "--strategy", "no_such_strategy");
        assertEquals(2, run.code(), run.out());
        assertTrue(run.err().get(0).contains("no_such_strategy"), run.err().toString());
    }

    @Test
    void aRunLeavesNoKeyOfItsOwnBehind() {
        try (Jedis redis = TestServers.redis().open("test", 5_000)) {
            int before = redis.keys("racelab:*:counter").size();
            CliRun run = run("run", FOLDER.resolve("redis-counter.lab").toString(), "--json");
            assertEquals(0, run.code(), run.err().toString());
            assertEquals(before, redis.keys("racelab:*:counter").size(), "the run's racelab:<run>:counter is gone");
        }
    }

    @Test
    void aSwitchOfTheFilesOwnIsSetWithSetAndASweepVariesAGatesDelay(@TempDir Path dir) throws Exception {
        Path lab = Files.copy(Path.of("src/test/resources/dev/racelab/labfile/switched.lab"),
                dir.resolve("switched.lab"));
        CliRun broken = run("run", lab.toString(), "--json");
        assertEquals(0, broken.code(), broken.err().toString());
        assertEquals("RACE", JsonParser.parseString(broken.out()).getAsJsonObject().get("verdict").getAsString());
        CliRun fixed = run("run", lab.toString(), "--set", "fix=incr", "--runs", "2", "--json");
        assertEquals(0, fixed.code(), fixed.err().toString());
        assertEquals(2, JsonParser.parseString(fixed.out()).getAsJsonObject().getAsJsonObject("verdicts")
                .get("SAFE").getAsInt(), fixed.out());
        CliRun refused = run("run", lab.toString(), "--set", "fix=nope");
        assertEquals(2, refused.code());
        assertTrue(refused.err().get(0).contains("fix is one of none, incr"), refused.err().toString());

        CliRun sweep = run("run", lab.toString(), "--sweep", "between=0-10/10", "--runs", "1");
        assertEquals(0, sweep.code(), sweep.err().toString());
        assertTrue(sweep.out().contains("between=0 ms: 1 run") && sweep.out().contains("between=10 ms: 1 run"),
                sweep.out());
    }

    @Test
    void aWorkerThatCrashesAtItsGateLeavesItsRedisLockBehindUnlessItHasALease() {
        String crash = "src/test/resources/dev/racelab/labfile/crash.lab";
        CliRun noLease = run("run", crash, "--runs", "2", "--json");
        assertEquals(0, noLease.code(), noLease.err().toString());
        JsonObject stuck = JsonParser.parseString(noLease.out()).getAsJsonObject();
        assertEquals(2, stuck.getAsJsonObject("verdicts").get("RACE").getAsInt(), noLease.out());
        assertEquals(0, stuck.getAsJsonObject("metrics").get("stuck behind a dead holder").getAsInt(),
                "nobody got the lock after client-1 crashed holding it");
        CliRun lease = run("run", crash, "--strategy", "lease", "--runs", "2", "--json");
        assertEquals(0, lease.code(), lease.err().toString());
        assertEquals(2, JsonParser.parseString(lease.out()).getAsJsonObject().getAsJsonObject("verdicts")
                .get("SAFE").getAsInt(), lease.out());
        CliRun disarmed = run("run", crash, "--delay", "crash_holding=0@client-1", "--json");
        assertEquals(0, disarmed.code(), disarmed.err().toString());
        assertEquals("SAFE", JsonParser.parseString(disarmed.out()).getAsJsonObject().get("verdict").getAsString(),
                "without the crash, the lock is let go: " + disarmed.out());
    }
}
