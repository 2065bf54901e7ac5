package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.labs.Labs;
import dev.racelab.labs.isolation.IsolationLab;
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

/**
 * A lab written as a file records, replays, exports and reruns like a built-in one: the recording
 * carries the file, so it needs neither the file nor a server; and a recording's carried text is
 * checked as the file was, a hostile one refused naming where.
 */
@Tag("lab")
class LabFileRecordingTest {

    private static final Path FOLDER = Path.of("src/main/resources/dev/racelab/labfiles");

    private static CliRun run(String... args) {
        return CliRun.onTestServers(args);
    }

    @Test
    void aRecordingOfALabFileReplaysExportsAndRerunsWithoutTheFile(@TempDir Path dir) throws Exception {
        Path lab = Files.copy(FOLDER.resolve("redis-counter.lab"), dir.resolve("my-counter.lab"));
        Path recording = dir.resolve("runs.racelab");
        CliRun ran = run("run", lab.toString(), "--runs", "2", "--record", recording.toString(), "--json");
        assertEquals(0, ran.code(), ran.err().toString());
        JsonObject live = JsonParser.parseString(ran.out()).getAsJsonObject();
        assertEquals("my-counter.lab", live.get("lab").getAsString());
        Files.delete(lab);

        // No server and no file: the recording is enough.
        CliRun replayed = CliRun.of(CliRun.nowhere(dir.resolve("home")), "replay", recording.toString(), "--json");
        assertEquals(0, replayed.code(), replayed.err().toString());
        JsonObject again = JsonParser.parseString(replayed.out()).getAsJsonObject();
        for (String field : List.of("lab", "strategy", "verdict", "verdicts", "violations", "events")) {
            assertEquals(live.get(field), again.get(field), field);
        }
        Path csv = dir.resolve("runs.csv");
        CliRun exported = CliRun.of(CliRun.nowhere(dir.resolve("home")), "export", recording.toString(),
                "--format", "csv", "--out", csv.toString());
        assertEquals(0, exported.code(), exported.err().toString());
        assertTrue(Files.readAllLines(csv).size() > live.get("events").getAsInt(), "every event is a row");

        CliRun rerun = run("rerun", recording.toString(), "--runs", "1", "--strategy", "incr", "--json");
        assertEquals(0, rerun.code(), rerun.err().toString());
        JsonObject fixed = JsonParser.parseString(rerun.out()).getAsJsonObject();
        assertEquals("my-counter.lab", fixed.get("lab").getAsString());
        assertEquals("SAFE", fixed.get("verdict").getAsString(), rerun.out());
    }

    @Test
    void aSpecRunsAsTheIsolationLabAndItsRecordingCarriesTheSpec(@TempDir Path dir) throws Exception {
        Path spec = Files.writeString(dir.resolve("two-writers.spec"), """
                setup { CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0); }
                teardown { DROP TABLE t; }
                session a
                step a1 { BEGIN; UPDATE t SET v = v + 1 WHERE id = 1; }
                step a2 { COMMIT; }
                session b
                step b1 { UPDATE t SET v = v + 10 WHERE id = 1; }
                step b2 { SELECT v FROM t WHERE id = 1; }
                permutation a1 b1 a2 b2
                """);
        Path recording = dir.resolve("spec.racelab");
        CliRun ran = run("run", spec.toString(), "--record", recording.toString(), "--json");
        assertEquals(0, ran.code(), ran.err().toString());
        assertEquals(1, JsonParser.parseString(ran.out()).getAsJsonObject().getAsJsonObject("metrics")
                .get("waited").getAsInt(), "b1 waits for a's row lock: " + ran.out());
        Files.delete(spec);
        String text = Files.readString(recording);
        assertTrue(text.contains("step b1 { UPDATE t SET v = v + 10 WHERE id = 1; }"), "the spec travels with it");
        CliRun replayed = CliRun.of(CliRun.nowhere(dir.resolve("home")), "replay", recording.toString());
        assertEquals(0, replayed.code(), replayed.err().toString());
        assertTrue(replayed.out().contains("1 waited"), replayed.out());

        // Reading it leaves the labs RaceLab offers as they were: the isolation lab keeps its own spec.
        Labs labs = new Labs(TestServers.backends());
        String before = ((IsolationLab) labs.find(IsolationLab.ID).orElseThrow()).spec().name();
        new RecordingReader(labs).read(recording);
        assertEquals(before, ((IsolationLab) labs.find(IsolationLab.ID).orElseThrow()).spec().name());

        // A recording's spec is anybody's text: however its header asks, it never runs as the user's login.
        Path asLogin = Files.writeString(dir.resolve("as-login.racelab"), Files.readString(recording)
                .replace("\"switches\":{}", "\"switches\":{\"as-login\":\"true\"}"));
        CliRun refused = run("rerun", asLogin.toString());
        assertEquals(2, refused.code(), refused.out());
        assertTrue(refused.err().get(0).contains("never as your login"), refused.err().toString());
    }

    @Test
    void aRecordingCarryingABrokenOrHostileLabIsRefusedNamingWhere(@TempDir Path dir) throws Exception {
        Path lab = Files.copy(FOLDER.resolve("redis-counter.lab"), dir.resolve("c.lab"));
        Path recording = dir.resolve("c.racelab");
        CliRun ran = run("run", lab.toString(), "--record", recording.toString());
        assertEquals(0, ran.code(), ran.err().toString());
        String text = Files.readString(recording);
        String[][] edits = {
                // A key outside racelab: the text is checked as the file was, before anything runs.
                {"racelab:counter", "user:counter"},
                // Not a lab at all.
                {"title", "titel"},
                // A name no lab file has: control characters for a terminal.
                {"\"lab\":\"c.lab\"", "\"lab\":\"c\\\\u001b[2J.lab\""},
        };
        for (String[] edit : edits) {
            Path hostile = Files.writeString(dir.resolve("hostile.racelab"), text.replaceFirst(edit[0], edit[1]));
            CliRun replayed = CliRun.of(CliRun.nowhere(dir.resolve("home")), "replay", hostile.toString());
            assertEquals(2, replayed.code(), edit[1] + ": " + replayed.out());
            assertEquals(1, replayed.err().size(), replayed.err().toString());
            String said = replayed.err().get(0);
            assertTrue(said.contains("hostile.racelab") && said.contains("that cannot be read")
                    && (said.matches(".*:\\d+:\\d+.*") || said.contains("a lab file's name is")), said);
            assertFalse(said.contains("\u001b"), "no control character reaches the terminal");
        }
    }
}
