package dev.racelab.cli;

import dev.racelab.support.OddFiles;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outputs of {@code run --record} and {@code isolation --out} that RaceLab must not write, found
 * before any server: a FIFO, a folder, a symbolic link to standard output or to nowhere, a file that
 * exists (without {@code --force}), a folder that takes no file. Each is refused with exit 2 and one
 * line naming it and what it is, and is left exactly as it was, with no temporary file beside it.
 * No server is involved: the environment names servers where nobody listens, so a command that got
 * past its checks would end with exit 1 ("cannot be reached").
 */
@Tag("engine")
class OutputRefusalTest {

    @TempDir
    Path dir;

    private CliRun cli(String... args) {
        return CliRun.of(CliRun.nowhere(dir.resolve("home")), args);
    }

    /** Exit 2, nothing on standard output, one line on standard error naming {@code target} and {@code words}. */
    private static void refused(CliRun result, Path target, String... words) {
        assertEquals(2, result.code(), "refused before any server: " + result.out() + result.err());
        assertEquals(1, result.err().size(), "one line: " + result.err());
        String line = result.err().get(0);
        assertTrue(line.startsWith("racelab: ") && line.contains(target.toString()), "names " + target + ": " + line);
        for (String word : words) {
            assertTrue(line.contains(word), "says '" + word + "': " + line);
        }
        assertFalse(line.contains(".part") || line.contains("Exception"), line);
        assertEquals("", result.out());
    }

    /** Each odd output, made in {@code folder} under {@code name}, with the words its refusal must say. */
    private Map<Path, String> oddOutputs(Path folder, String name) throws Exception {
        Files.createDirectories(folder);
        Map<Path, String> odd = new LinkedHashMap<>();
        odd.put(OddFiles.fifo(folder.resolve("fifo-" + name)), "FIFO");
        odd.put(Files.createDirectory(folder.resolve("folder-" + name)), "folder");
        odd.put(Files.createSymbolicLink(folder.resolve("stdout-" + name), Path.of("/proc/self/fd/1")),
                "/proc/self/fd/1");
        odd.put(Files.createSymbolicLink(folder.resolve("dangling-" + name), folder.resolve("nowhere")), "nowhere");
        odd.put(Files.writeString(folder.resolve("existing-" + name), "mine"), "--force");
        return odd;
    }

    @Test
    void aRecordingIsWrittenOnlyToANewRegularFileOrOneTheUserForced() throws Exception {
        Map<Path, String> odd = oddOutputs(dir.resolve("out"), "run.racelab");
        for (Map.Entry<Path, String> target : odd.entrySet()) {
            String before = OddFiles.snapshot(target.getKey());
            refused(cli("run", "counter", "--record", target.getKey().toString()), target.getKey(), target.getValue());
            assertEquals(before, OddFiles.snapshot(target.getKey()), "left as it was: " + target.getKey());
        }
        assertEquals(List.of(), OddFiles.hidden(dir.resolve("out")), "no temporary file left");
        assertFalse(Files.exists(dir.resolve("out/nowhere")), "nothing made where the dangling link points");
    }

    @Test
    void isolationOutputsAreCheckedBeforeAnyServerAndNeverReplaceWhatIsThere() throws Exception {
        for (Map.Entry<Path, String> target : oddOutputs(dir.resolve("specs"), "x").entrySet()) {
            // Each odd thing stands where the spec's transcript goes: DIR/p4-lost-update.out.
            Path folder = dir.resolve("out-" + target.getKey().getFileName());
            Files.createDirectory(folder);
            Path out = folder.resolve("p4-lost-update.out");
            Files.move(target.getKey(), out);
            String before = OddFiles.snapshot(out);
            refused(cli("isolation", "p4-lost-update", "--out", folder.toString()), out, target.getValue());
            assertEquals(before, OddFiles.snapshot(out), "left as it was: " + target.getValue());
            assertEquals(List.of(), OddFiles.hidden(folder), "no temporary file left");
        }
    }

    @Test
    void anIsolationFolderThatTakesNoFileIsRefusedBeforeAnyServer() {
        List<String> places = new ArrayList<>(List.of("/proc"));
        if (Files.isDirectory(Path.of("/sys"))) {
            places.add("/sys");
        }
        for (String place : places) {
            refused(cli("isolation", "p4-lost-update", "--out", place), Path.of(place, "p4-lost-update.out"));
        }
    }

    @Test
    void twoSpecsOfOneNameWouldWriteOneFileAndAreRefused() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("twice"));
        CliRun twice = cli("isolation", "p4-lost-update", "p4-lost-update", "--out", folder.toString());
        refused(twice, folder.resolve("p4-lost-update.out"), "twice");
    }

    @Test
    void forceGoesWithAnOutput() {
        CliRun run = cli("run", "counter", "--force");
        assertEquals(2, run.code(), run.err().toString());
        assertTrue(run.err().get(0).contains("--force goes with --record"), run.err().toString());
        CliRun isolation = cli("isolation", "p4-lost-update", "--force");
        assertEquals(2, isolation.code(), isolation.err().toString());
        assertTrue(isolation.err().get(0).contains("--force goes with --out"), isolation.err().toString());
    }

    @Test
    void theHelpOfEachCommandThatWritesSaysWhatForceDoes() {
        for (String command : List.of("run", "rerun", "export", "isolation")) {
            CliRun help = cli(command, "--help");
            assertEquals(0, help.code(), help.err().toString());
            assertTrue(help.out().contains("--force") && (help.out().contains("replace a file that exists")
                    || help.out().contains("replace transcripts that exist")), command + ": " + help.out());
        }
    }

    @Test
    void aForcedRecordingLeavesTheOldFileAloneWhenNoRunWasRecorded() throws Exception {
        Path file = Files.writeString(dir.resolve("kept.racelab"), "mine");
        CliRun result = cli("run", "counter", "--record", file.toString(), "--force");
        assertEquals(1, result.code(), "past the checks, to the server: " + result.err());
        assertEquals("mine", Files.readString(file), "nothing was recorded, nothing replaced");
        assertEquals(List.of(), OddFiles.hidden(dir), "no temporary file left");
    }
}
