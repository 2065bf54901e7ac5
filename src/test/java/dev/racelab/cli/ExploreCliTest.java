package dev.racelab.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.explore.Interleaving;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code racelab explore}: its report, its exit codes, and its shrunk failure run again exactly. */
@Tag("lab")
class ExploreCliTest {

    @TempDir
    Path dir;

    private static CliRun explore(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "explore";
        System.arraycopy(args, 0, all, 1, args.length);
        return CliRun.of(TestServers.childEnvironment(), all);
    }

    private static RunRecord read(Path file) throws Exception {
        Recording recording = new RecordingReader(new Labs(TestServers.backends()))
                .read(file);
        return recording.last();
    }

    @Test
    void everyInterleavingOfTheCounterRunsAndTheFailingOnesAreThoseWithBothReadsFirst() {
        CliRun run = explore("counter", "--workers", "2", "--ops", "1", "--method", "all", "--json");
        assertEquals(0, run.code(), run.err().toString());
        JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
        assertEquals("counter", json.get("lab").getAsString());
        assertEquals("read-modify-write", json.get("strategy").getAsString());
        assertEquals("all", json.get("method").getAsString());
        JsonArray passages = json.getAsJsonArray("passages");
        assertEquals(2, passages.get(0).getAsInt(), "before-read and after-read");
        assertEquals(2, passages.get(1).getAsInt());
        assertEquals(6, json.get("space").getAsInt(), "4! / (2! 2!)");
        assertTrue(json.get("exhausted").getAsBoolean());
        assertEquals(6, json.get("schedules").getAsInt());
        int bothReadsFirst = 0;
        for (var element : json.getAsJsonArray("failingSchedules")) {
            JsonArray schedule = element.getAsJsonObject().getAsJsonArray("schedule");
            assertFalse(schedule.get(0).getAsString().equals(schedule.get(1).getAsString()),
                    "a failing schedule reads twice first: " + schedule);
            bothReadsFirst++;
        }
        assertEquals(4, bothReadsFirst, "both reads come first in 2 × 2 of the 6 schedules");
        assertEquals(4, json.get("failing").getAsInt());
        assertEquals(4, json.getAsJsonObject("outcomes").get("RACE").getAsInt());
        assertEquals(2, json.getAsJsonObject("outcomes").get("SAFE").getAsInt());
        assertEquals(0, json.get("firstFailure").getAsInt() % 1);
        JsonObject shrunk = json.getAsJsonObject("shrunk");
        assertEquals(1, shrunk.get("preemptions").getAsInt());
        assertEquals("RACE", shrunk.get("verdict").getAsString());
        assertTrue(shrunk.get("confirmed").getAsBoolean());
        assertTrue(json.get("schedulesPerSecond").getAsDouble() > 0);
    }

    @Test
    void theFixesFailInNoScheduleOfTheWholeSpace() {
        for (String fix : List.of("atomic-update", "select-for-update", "serializable-retry")) {
            CliRun run = explore("counter", "--strategy", fix, "--workers", "2", "--ops", "1", "--method", "all",
                    "--expect", "SAFE", "--json");
            assertEquals(0, run.code(), fix + ": " + run.err());
            JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
            assertTrue(json.get("exhausted").getAsBoolean(), fix);
            assertEquals(0, json.get("failing").getAsInt(), fix);
            assertEquals(json.get("schedules").getAsInt(), json.get("space").getAsInt(), fix);
        }
    }

    @Test
    void theShrunkFailureSavedAndRunAgainTenTimesEndsTheSameWayPassageForPassage() throws Exception {
        CliRun run = explore("counter", "--workers", "2", "--ops", "1", "--method", "bounded", "--preemptions", "2",
                "--record-failing", dir.toString(), "--expect", "SAFE");
        assertEquals(3, run.code(), "--expect SAFE, and a schedule failed: " + run.err());
        Path shrunk = dir.resolve("counter-read-modify-write-shrunk.racelab");
        assertTrue(Files.isRegularFile(shrunk));
        assertTrue(Files.isRegularFile(dir.resolve("counter-read-modify-write-first.racelab")));
        assertTrue(run.out().contains("shrunk: RACE"), run.out());
        RunRecord saved = read(shrunk);
        assertEquals(Verdict.RACE, saved.outcome().verdict());
        assertEquals(4, saved.header().spec().schedule().size(), "the recording carries the schedule");
        runAgainTenTimesAlike(shrunk, saved);
        CliRun replay = CliRun.of(TestServers.childEnvironment(), "replay", shrunk.toString());
        assertEquals(0, replay.code(), "replayed with no server, as any recording");
    }

    /**
     * A Redis lab's shrunk deadlock (three philosophers each holding a left fork, each waiting for
     * the wake-up of a fork its neighbour holds), run again ten times: the same passages and the
     * same end every time, the waits for wake-ups ordered as the gates are.
     */
    @Test
    void aRedisLabsShrunkDeadlockRunAgainTenTimesEndsTheSameWay() throws Exception {
        CliRun run = explore("dining-philosophers", "--workers", "3", "--strategy", "naive", "--record-failing",
                dir.toString());
        assertEquals(0, run.code(), run.err().toString());
        assertTrue(run.out().contains("shrunk: DEADLOCK 3 philosophers in a cycle"), run.out());
        Path shrunk = dir.resolve("dining-philosophers-naive-shrunk.racelab");
        RunRecord saved = read(shrunk);
        assertEquals(Verdict.DEADLOCK, saved.outcome().verdict());
        assertTrue(Interleaving.of(saved).contains("waits for"), Interleaving.of(saved));
        runAgainTenTimesAlike(shrunk, saved);
    }

    /** Runs {@code shrunk} again ten times: each run follows its schedule and ends as {@code saved} did, passage for passage. */
    private void runAgainTenTimesAlike(Path shrunk, RunRecord saved) throws Exception {
        String interleaving = Interleaving.of(saved);
        for (int i = 0; i < 10; i++) {
            Path again = dir.resolve("again-" + i + ".racelab");
            CliRun rerun = CliRun.of(TestServers.childEnvironment(), "rerun", shrunk.toString(), "--record",
                    again.toString());
            assertEquals(0, rerun.code(), rerun.err().toString());
            RunRecord record = read(again);
            assertEquals(saved.outcome().verdict(), record.outcome().verdict(), "run " + i);
            assertEquals(saved.header().spec().schedule(), record.header().spec().schedule(), "run " + i);
            assertEquals(interleaving, Interleaving.of(record), "run " + i);
        }
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        assertRefused(explore("counter", "--method", "everything"), "--method everything");
        assertRefused(explore("counter", "--method", "all", "--preemptions", "1"), "--preemptions goes with");
        assertRefused(explore("counter", "--runs", "3"), "--runs is not for explore");
        assertRefused(explore("counter", "--delay", "after-read=5"), "explore drops delays");
        assertRefused(explore("counter", "--schedules", "0"), "--schedules must be from 1");
        assertRefused(explore("isolation", "--strategy", "permutation"), "orders its workers itself");
    }

    private static void assertRefused(CliRun run, String saying) {
        assertEquals(2, run.code(), run.err().toString());
        assertEquals(1, run.err().size(), run.err().toString());
        assertTrue(run.err().get(0).contains(saying), run.err().get(0));
        assertEquals("", run.out());
    }
}
