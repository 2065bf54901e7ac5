package dev.racelab.it;

import dev.racelab.bench.SyntheticRecording;
import dev.racelab.support.Child;
import dev.racelab.support.Children;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recording of a million events, and a 200 MB line, read by the packaged jar in a JVM with a
 * 48 MB heap: {@code replay} and every export finish, so what they keep does not grow with the
 * recording (the events alone take more than that heap as objects), and the long line is refused in
 * one short line instead of being read whole.
 */
@Tag("it")
class BigRecordingIT {

    private static final String HEAP = "-Xmx48m";
    private static final long EVENTS = 1_000_000;

    @TempDir
    static Path dir;
    private static Path million;

    private final Children children = new Children();

    @BeforeAll
    static void write() throws Exception {
        million = dir.resolve("million.racelab");
        SyntheticRecording.write(EVENTS, million, dir.resolve("home"));
    }

    @AfterEach
    void stopChildren() {
        children.close();
    }

    private Child racelab(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("java", HEAP, "-jar", Child.jar().toString()));
        command.addAll(Arrays.asList(args));
        return children.start(command, Map.of("RACELAB_HOME", dir.resolve("home").toString()));
    }

    /** How many events the recording's outcome line counts. */
    private static long recorded() throws Exception {
        try (BufferedReader in = Files.newBufferedReader(million)) {
            return in.lines().filter(line -> line.startsWith("{\"type\":\"outcome\"")).mapToLong(line -> Long.parseLong(
                    line.replaceAll(".*\"events\":(\\d+).*", "$1"))).sum();
        }
    }

    @Test
    void replayOfAMillionEventsKeepsToItsHeap() throws Exception {
        Child child = racelab("replay", million.toString());
        assertEquals(0, child.await(600), child.err());
        assertTrue(child.out().contains(" · " + recorded() + " events\n"), child.out());
        assertTrue(child.out().contains("RACE — "), child.out());
    }

    @Test
    void theCsvOfAMillionEventsKeepsToItsHeap() throws Exception {
        Path out = dir.resolve("million.csv");
        Child child = racelab("export", million.toString(), "--format", "csv", "--out", out.toString());
        assertEquals(0, child.await(600), child.err());
        try (BufferedReader in = Files.newBufferedReader(out)) {
            assertEquals(recorded() + 1, in.lines().count(), "a header and a line per event");
        }
    }

    @Test
    void theTraceOfAMillionEventsKeepsToItsHeap() throws Exception {
        Path out = dir.resolve("million.json");
        Child child = racelab("export", million.toString(), "--format", "trace", "--out", out.toString());
        assertEquals(0, child.await(600), child.err());
        try (RandomAccessFile file = new RandomAccessFile(out.toFile(), "r")) {
            byte[] tail = new byte[2];
            file.seek(file.length() - 2);
            file.readFully(tail);
            assertEquals("]}", new String(tail, StandardCharsets.US_ASCII), "the trace is whole");
        }
    }

    @Test
    void theTimelinePicturesOfAMillionEventsKeepToTheirHeap() throws Exception {
        for (String format : List.of("svg", "png")) {
            Path out = dir.resolve("million." + format);
            Child child = racelab("export", million.toString(), "--format", format, "--out", out.toString());
            assertEquals(0, child.await(600), format + ": " + child.err());
            assertTrue(Files.size(out) > 1000, format);
        }
    }

    @Test
    void aLineOf200MegabytesIsRefusedInOneShortLine() throws Exception {
        Path file = dir.resolve("long line.racelab");
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write("{\"format\":\"racelab-recording\",\"version\":1}\n{\"type\":\"".getBytes(StandardCharsets.UTF_8));
            byte[] block = new byte[1 << 20];
            Arrays.fill(block, (byte) 'x');
            for (int i = 0; i < 200; i++) {
                out.write(block);
            }
        }
        Child child = racelab("replay", file.toString());
        assertEquals(2, child.await(600), child.err());
        assertEquals(1, child.err().split("\n").length, child.err());
        assertTrue(child.err().length() < 300, "a short line, not " + child.err().length() + " characters");
        assertTrue(child.err().contains("line 2"), child.err());
    }
}
