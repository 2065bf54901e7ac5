package dev.racelab.cli;

import dev.racelab.record.RecordingFormat;
import dev.racelab.support.OddFiles;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code export --out}, {@code run --record} and {@code isolation --out} write, against the
 * real servers: only a new regular file, or one the user replaced with {@code --force}; a link to an
 * existing file is followed only when forced, and then its target is written and the line says so;
 * a FIFO, a folder, a link to standard output or to nowhere, {@code /dev/null} and a folder that
 * takes no file are refused with one line, left as they were, with no temporary file beside them.
 */
@Tag("lab")
class OutputFilesTest {

    @TempDir
    static Path dir;
    private static Path recording;

    private static CliRun cli(String... args) {
        return CliRun.of(TestServers.childEnvironment(), args);
    }

    @BeforeAll
    static void record() {
        recording = dir.resolve("counter.racelab");
        CliRun run = cli("run", "counter", "--workers", "2", "--ops", "2", "--record", recording.toString());
        assertEquals(0, run.code(), run.err().toString());
    }

    private static CliRun export(Path out, String... more) {
        List<String> line = new ArrayList<>(List.of("export", recording.toString(), "--format", "csv", "--out",
                out.toString()));
        line.addAll(List.of(more));
        return cli(line.toArray(String[]::new));
    }

    /** Exit 2, nothing on standard output, one line naming {@code target} and {@code word}. */
    private static void refused(CliRun result, Path target, String word) {
        assertEquals(2, result.code(), result.out() + result.err());
        assertEquals(1, result.err().size(), "one line: " + result.err());
        String line = result.err().get(0);
        assertTrue(line.startsWith("racelab: ") && line.contains(target.toString()), "names " + target + ": " + line);
        assertTrue(line.contains(word), "says '" + word + "': " + line);
        assertFalse(line.contains(".part") || line.contains("Exception"), line);
        assertEquals("", result.out());
    }

    @Test
    void anExportIsWrittenOnlyToANewRegularFile() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("exports"));
        Map<Path, String> odd = new LinkedHashMap<>();
        odd.put(OddFiles.fifo(folder.resolve("fifo.csv")), "FIFO");
        odd.put(Files.createDirectory(folder.resolve("folder.csv")), "folder");
        odd.put(Files.createSymbolicLink(folder.resolve("stdout.csv"), Path.of("/proc/self/fd/1")), "/proc/self/fd/1");
        odd.put(Files.createSymbolicLink(folder.resolve("dangling.csv"), folder.resolve("nowhere.csv")), "nowhere.csv");
        odd.put(Files.writeString(folder.resolve("existing.csv"), "mine"), "--force");
        for (Map.Entry<Path, String> target : odd.entrySet()) {
            String before = OddFiles.snapshot(target.getKey());
            refused(export(target.getKey()), target.getKey(), target.getValue());
            assertEquals(before, OddFiles.snapshot(target.getKey()), "left as it was: " + target.getKey());
        }
        assertEquals(List.of(), OddFiles.hidden(folder), "no temporary file left");
        assertFalse(Files.exists(folder.resolve("nowhere.csv")), "nothing made where the dangling link points");

        // The one device a test may name, as a target that must be refused: /dev/null stays the device it is.
        Path devNull = Path.of("/dev/null");
        String device = OddFiles.snapshot(devNull);
        refused(export(devNull, "--force"), devNull, "character device");
        assertEquals(device, OddFiles.snapshot(devNull), "/dev/null left as it was");
        assertTrue(device.startsWith("mode=20666 "), "a character device, rw for all: " + device);

        CliRun forced = export(folder.resolve("existing.csv"), "--force");
        assertEquals(0, forced.code(), forced.err().toString());
        assertTrue(Files.readString(folder.resolve("existing.csv")).startsWith("run,"), "replaced when forced");
    }

    @Test
    void aForcedExportThroughALinkWritesItsTargetKeepsTheLinkAndSaysSo() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("linked"));
        Path target = Files.writeString(Files.createDirectory(folder.resolve("real")).resolve("events.csv"), "old");
        Path link = Files.createSymbolicLink(folder.resolve("events.csv"), target);
        refused(export(link), link, "--force");
        assertEquals("old", Files.readString(target));

        CliRun forced = export(link, "--force");
        assertEquals(0, forced.code(), forced.err().toString());
        assertTrue(Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(target), "the link stays");
        assertTrue(Files.readString(target).startsWith("run,"), "its target holds the export");
        assertEquals(1, forced.err().size(), forced.err().toString());
        String said = forced.err().get(0);
        assertTrue(said.contains(link + " is a symbolic link: writing " + target.toRealPath()), said);
        assertEquals(List.of(), OddFiles.hidden(folder.resolve("real")), "no temporary file left");
    }

    /** A picture reads its recording twice: a pipe (read once, then empty) is refused up front. */
    @Test
    void aPictureOfAPipeIsRefusedSayingWhy() throws Exception {
        Path pipe = OddFiles.fifo(dir.resolve("recording.fifo"));
        Path out = dir.resolve("from-a-pipe.svg");
        CliRun result = cli("export", pipe.toString(), "--format", "svg", "--out", out.toString());
        refused(result, pipe, "a picture reads its recording twice");
        assertFalse(Files.exists(out), "nothing written");
    }

    @Test
    void anExportIntoAFolderThatTakesNoFileSaysPermissionDeniedNotATemporaryName() throws Exception {
        List<Path> places = new ArrayList<>();
        if (Files.isDirectory(Path.of("/sys"))) {
            places.add(Path.of("/sys/events.csv"));
        }
        Path readOnly = Files.createDirectory(dir.resolve("read-only"));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
        if (!Files.isWritable(readOnly)) {
            places.add(readOnly.resolve("events.csv"));
        }
        assertFalse(places.isEmpty(), "a folder that takes no file: /sys, or a read-only one for a user not root");
        for (Path place : places) {
            refused(export(place), place, "permission denied");
        }
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(List.of(), OddFiles.hidden(readOnly), "no temporary file left");
    }

    @Test
    void aRecordingReplacesAFileOnlyWhenForcedAndKeepsItsPermissions() throws Exception {
        Path file = Files.writeString(dir.resolve("again.racelab"), "mine");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        CliRun refused = cli("run", "counter", "--workers", "2", "--ops", "2", "--record", file.toString());
        refused(refused, file, "--force");
        assertEquals("mine", Files.readString(file));

        CliRun forced = cli("run", "counter", "--workers", "2", "--ops", "2", "--record", file.toString(), "--force");
        assertEquals(0, forced.code(), forced.err().toString());
        assertTrue(Files.readString(file).contains(RecordingFormat.MAGIC), "a recording now");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file,
                LinkOption.NOFOLLOW_LINKS)), "the replaced file's permissions");
    }

    @Test
    void anIsolationTranscriptReplacesAFileOnlyWhenForced() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("transcripts"));
        Path out = Files.writeString(folder.resolve("p4-lost-update.out"), "mine");
        refused(cli("isolation", "p4-lost-update", "--out", folder.toString()), out, "--force");
        assertEquals("mine", Files.readString(out));

        CliRun forced = cli("isolation", "p4-lost-update", "--out", folder.toString(), "--force");
        assertEquals(0, forced.code(), forced.err().toString());
        assertTrue(Files.readString(out).startsWith("Parsed test spec"), Files.readString(out));
        assertEquals(List.of(), OddFiles.hidden(folder), "no temporary file left");
    }
}
