package dev.racelab.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code explore FILE.lab}: a lab file's interleavings at its gates, on the real servers. The
 * counter written as a file and the built-in counter lab have the same gates, so the same
 * schedules: they must agree schedule for schedule, the broken one failing in exactly the same
 * interleavings and each fix in none. The fencing file's race is found and shrunk to its story.
 */
@Tag("lab")
class LabFileExploreTest {

    private static final Path FOLDER = Path.of("src/main/resources/dev/racelab/labfiles");

    private static JsonObject explore(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "explore";
        System.arraycopy(args, 0, all, 1, args.length);
        all[all.length - 1] = "--json";
        CliRun run = CliRun.onTestServers(all);
        assertEquals(0, run.code(), run.err().toString());
        return JsonParser.parseString(run.out()).getAsJsonObject();
    }

    private static Set<String> failing(JsonObject found) {
        Set<String> schedules = new HashSet<>();
        for (JsonElement element : found.getAsJsonArray("failingSchedules")) {
            schedules.add(element.getAsJsonObject().getAsJsonArray("schedule").toString());
        }
        return schedules;
    }

    @ParameterizedTest(name = "{0} as a file, {1} built in")
    @CsvSource({"read_modify_write, read-modify-write", "select_for_update, select-for-update"})
    void theCounterFileAndTheCounterLabFailInTheSameSchedules(String asFile, String builtIn) {
        JsonObject file = explore(FOLDER.resolve("counter.lab").toString(), "--strategy", asFile, "--method", "all");
        JsonObject lab = explore("counter", "--strategy", builtIn, "--workers", "2", "--ops", "1", "--method", "all");
        assertTrue(file.get("exhausted").getAsBoolean() && lab.get("exhausted").getAsBoolean());
        assertEquals(lab.get("space").getAsInt(), file.get("space").getAsInt(), "the same space");
        assertEquals(failing(lab), failing(file), "the same failing schedules");
        // The race fails in four of the six; the row lock, whose waits the schedule asks PostgreSQL about, in none.
        assertEquals(asFile.equals("read_modify_write") ? 4 : 0, file.get("failing").getAsInt(), file.toString());
    }

    @Test
    void theFencingFilesStaleWriteIsFoundAndShrunkAndItsFixHoldsWhereItFailed() {
        JsonObject broken = explore(FOLDER.resolve("fencing.lab").toString());
        JsonObject shrunk = broken.getAsJsonObject("shrunk");
        assertEquals("RACE", shrunk.get("verdict").getAsString(), broken.toString());
        assertTrue(shrunk.get("confirmed").getAsBoolean(), "followed again, it fails again");
        assertEquals(1, shrunk.get("preemptions").getAsInt());
        String story = shrunk.get("interleaving").getAsString();
        assertTrue(story.startsWith("client-1 sends take · client-1 sends check") && story.endsWith("sends write"),
                story);

        // Every schedule with at most one preemption (the stale write needs one): none fails.
        JsonObject fixed = explore(FOLDER.resolve("fencing.lab").toString(), "--strategy", "fenced_cas",
                "--method", "bounded", "--preemptions", "1");
        assertTrue(fixed.get("exhausted").getAsBoolean(), fixed.toString());
        assertEquals(0, fixed.get("failing").getAsInt(), fixed.toString());
        JsonArray passages = fixed.getAsJsonArray("passages");
        assertEquals(2, passages.size(), "two workers: a one-session file explores as a built-in lab does");
    }
}
