package dev.racelab.it;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM or SIGINT (Ctrl-C) while RaceLab sets up or starts its embedded PostgreSQL, before any
 * run: the command ends within seconds, prints the summary of what there was (no run; with
 * {@code --json}, the JSON object), leaves no partial recording beside its target and nothing
 * running (not initdb, not a postmaster), and the next start on the same data home starts cleanly,
 * with nothing to heal or stop.
 */
@Tag("it")
class StartupSignalIT {

    /** From the signal to the end of the process: a second or two; this leaves room for a busy machine. */
    private static final long ENDS_WITHIN_MILLIS = 8_000;

    @TempDir
    Path dir;

    private final Children children = new Children();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void sigtermWhileThePostgresBinariesAreUnpackedEndsAtOnceWithTheJsonSummary() throws Exception {
        Path home = dir.resolve("home");
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        Child child = start(home, out, "--json");
        Poll.Check unpacking = () -> unpackInProgress(home);
        assertTrue(Poll.eventually(Duration.ofSeconds(60), unpacking), "the binaries were never seen being unpacked: "
                + child.err());
        long ms = signal(child, "TERM");

        JsonObject json = JsonParser.parseString(child.out()).getAsJsonObject();
        assertTrue(json.get("interrupted").getAsBoolean(), child.out());
        assertEquals(0, json.get("runs").getAsInt(), child.out());
        assertEquals("counter", json.get("lab").getAsString());
        leftNothing(child, home, out, ms);
        startsCleanlyNext(home);
    }

    @Test
    void sigintWhileInitdbSetsUpTheClusterEndsAtOnceWithTheSummaryAndNoInitdbLeft() throws Exception {
        Path home = dir.resolve("home");
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        // A build without a prepared cluster sets one up with initdb; this one is told to.
        Child child = children.jar(Map.of("RACELAB_HOME", home.toString(), "RACELAB_POSTGRES_INITDB", "yes"),
                "run", "counter", "--workers", "1", "--ops", "1", "--record", out.resolve("run.racelab").toString());
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> !working(home, "initdb").isEmpty()),
                "initdb was never seen at work: " + child.err());
        long ms = signal(child, "INT");

        assertTrue(child.out().contains("interrupted by a signal before any run started"), child.out());
        assertTrue(child.out().startsWith("counter · read-modify-write · 1 client × 1 op"), child.out());
        leftNothing(child, home, out, ms);
        startsCleanlyNext(home);
    }

    @Test
    void sigintJustAsAKeptClusterStartsEndsAtOnceWithTheSummaryAndNoPostmasterLeft() throws Exception {
        Path home = dir.resolve("home");
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        startsCleanlyNext(home);
        for (String signal : List.of("INT", "TERM")) {
            Child child = start(home, out);
            assertTrue(Poll.eventually(Duration.ofSeconds(60), () -> child.err().contains(
                    "Starting embedded PostgreSQL…")), "the start was never said: " + child.err());
            long ms = signal(child, signal);
            assertTrue(child.out().contains("interrupted by a signal"), "SIG" + signal + ": " + child.out());
            leftNothing(child, home, out, ms);
        }
        startsCleanlyNext(home);
    }

    private Child start(Path home, Path out, String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of("run", "counter", "--workers", "1", "--ops", "1",
                "--record", out.resolve("run.racelab").toString()));
        args.addAll(List.of(more));
        return children.jar(Map.of("RACELAB_HOME", home.toString()), args.toArray(String[]::new));
    }

    /** Sends SIG{@code name} to the child and waits for it to end; the milliseconds it took. */
    private static long signal(Child child, String name) throws Exception {
        long sent = System.nanoTime();
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(child.process().pid())).start();
        assertEquals(0, kill.waitFor(), "kill -" + name);
        child.await(60);
        return (System.nanoTime() - sent) / 1_000_000;
    }

    /** No stack trace, no file beside the target, nothing of RaceLab's running, and all that within the bound. */
    private static void leftNothing(Child child, Path home, Path out, long ms) throws Exception {
        assertFalse(child.err().contains("Exception") || child.err().contains("\tat "), child.err());
        try (Stream<Path> left = Files.list(out)) {
            assertEquals(List.of(), left.toList(), "no recording of no run, no partial file: " + child.err());
        }
        assertTrue(Poll.eventually(Duration.ofSeconds(2), () -> working(home, "").isEmpty()),
                "still running after the command ended: " + working(home, "") + "; its output: " + child.out()
                        + child.err());
        assertTrue(ms < ENDS_WITHIN_MILLIS, "it ended " + ms + " ms after the signal; stderr: " + child.err());
    }

    /** A start on the same home runs a lab and has nothing to stop, heal or unpack again. */
    private void startsCleanlyNext(Path home) throws Exception {
        Child next = children.jar(Map.of("RACELAB_HOME", home.toString()), "run", "counter", "--workers", "1",
                "--ops", "1", "--json");
        assertEquals(0, next.await(120), next.err());
        assertTrue(JsonParser.parseString(next.out()).getAsJsonObject().has("verdict"), next.out());
        assertTrue(next.err().lines().allMatch(line -> line.startsWith("Setting up embedded PostgreSQL")
                || line.startsWith("Starting embedded PostgreSQL")), "nothing left to stop or heal: " + next.err());
        next.stop();
    }

    /** Whether the PostgreSQL binaries are being unpacked under {@code home}: files there, not yet whole. */
    private static boolean unpackInProgress(Path home) throws IOException {
        Path bin = home.resolve("postgres/bin");
        if (!Files.isDirectory(bin)) {
            return false;
        }
        try (Stream<Path> entries = Files.list(bin)) {
            List<String> names = entries.map(p -> p.getFileName().toString()).toList();
            // RaceLab unpacks into a hidden folder (before, zonky unpacked into PG-<md5> itself).
            boolean unpacking = names.stream().anyMatch(n -> n.startsWith(".unpacking-") || n.startsWith("PG-"));
            return unpacking && names.stream().noneMatch(n -> n.endsWith(".files"));
        }
    }

    /** RaceLab's processes of {@code home} whose command line names {@code program} (all of them, for ""). */
    private static List<String> working(Path home, String program) {
        return ProcFs.workingOn(home).stream().filter(line -> line.contains(program)).toList();
    }
}
