package dev.racelab.cli;

import dev.racelab.record.RecordingFormat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the format bounds, refused as the format says: an event on a lane no {@code ACTOR} line
 * announced, a lane announced twice, a server's report on a lane never announced, an arrow to an
 * event not yet recorded, a lane number past the most a run can have, a line longer than a recording's longest
 * (10 MiB against the bound of 8), and a file's long text, which a refusal quotes as a short
 * excerpt. Each refusal is one short line naming the line; no server is involved.
 */
@Tag("engine")
class RecordingBoundsTest {

    private static final String OPENING = "{\"format\":\"racelab-recording\",\"version\":1}";
    private static final String HEADER = "{\"type\":\"run\",\"run\":1,\"lab\":\"counter\",\"strategy\":"
            + "\"read-modify-write\",\"workers\":1,\"ops\":1,\"seed\":1,\"timeoutMs\":10000,\"stepMode\":false,"
            + "\"observe\":false,\"gates\":\"\",\"switches\":{},\"startedAt\":\"2026-11-23T10:00:00Z\","
            + "\"backend\":{}}";
    private static final String OUTCOME = "{\"type\":\"outcome\",\"verdict\":\"SAFE\",\"headline\":\"h\","
            + "\"explanation\":\"e\",\"violations\":{},\"metrics\":{},\"places\":[],\"events\":%d,\"droppedEvents\":0}";
    private static final String END = "{\"type\":\"end\",\"runs\":1,\"elapsedMs\":1,\"startupMs\":0}";

    @TempDir
    Path dir;

    private CliRun replay(Path file) {
        return CliRun.of(Map.of("RACELAB_HOME", dir.resolve("home").toString()), "replay", file.toString());
    }

    private Path recording(String name, String... events) throws Exception {
        StringBuilder text = new StringBuilder(OPENING).append('\n').append(HEADER).append('\n');
        for (String event : events) {
            text.append(event).append('\n');
        }
        text.append(String.format(OUTCOME, events.length)).append('\n').append(END).append('\n');
        Path file = dir.resolve(name);
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    private static void refused(CliRun result, String... saying) {
        assertEquals(2, result.code(), result.err().toString());
        assertEquals("", result.out());
        assertEquals(1, result.err().size(), "one line: " + result.err());
        String refusal = result.err().get(0);
        assertTrue(refusal.length() < 300, "a short line, not " + refusal.length() + " characters");
        for (String words : saying) {
            assertTrue(refusal.contains(words), refusal);
        }
    }

    @Test
    void aWholeRecordingWithItsLanesAnnouncedIsRead() throws Exception {
        CliRun result = replay(recording("fine.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                "[1,0,1,\"ACTOR\",\"WORKER\",\"client-1\"]", "[2,5,1,\"STATE\",\"RUNNING\",null]"));
        assertEquals(0, result.code(), result.err().toString());
    }

    /**
     * A wake-up whose waker is not known (the value -1: a lease ran out, a wait gave up and asked
     * again) is what RaceLab itself records: read, with no arrow (soak seed 7, runs 9 and 10: every
     * lease-fencing recording with such a wake-up was refused as damaged).
     */
    @Test
    void aWakeUpWithNoKnownWakerIsRead() throws Exception {
        CliRun result = replay(recording("no waker.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                "[1,0,1,\"ACTOR\",\"WORKER\",\"client-1\"]", "[2,5,1,\"WOKEN\",-1,\"lock\"]"));
        assertEquals(0, result.code(), result.err().toString());
    }

    @Test
    void anEventOnALaneNoActorLineAnnouncedIsRefused() throws Exception {
        refused(replay(recording("unannounced.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                        "[1,5,7,\"STATE\",\"RUNNING\",null]")),
                "line 4", "lane 7", "no ACTOR line announced");
    }

    @Test
    void aLaneNumberPastTheMostARunHasIsRefused() throws Exception {
        refused(replay(recording("far lane.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                        "[1,0,100000000,\"ACTOR\",\"WORKER\",\"client-1\"]")),
                "line 4", "lane 100000000");
    }

    @Test
    void aLaneAnnouncedTwiceIsRefused() throws Exception {
        refused(replay(recording("twice.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                        "[1,0,1,\"ACTOR\",\"WORKER\",\"client-1\"]", "[2,0,1,\"ACTOR\",\"WORKER\",\"client-1\"]")),
                "line 5", "announces lane 1 again");
    }

    /** A lane with no name (its exports would have nothing to print) is refused, not a stack trace. */
    @Test
    void aLaneAnnouncedWithoutANameIsRefused() throws Exception {
        refused(replay(recording("nameless.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                        "[1,0,1,\"ACTOR\",\"WORKER\",null]")),
                "line 4", "announces lane 1 without a name");
    }

    /** Numbers past what the JSON parser takes (an exponent above 10,000) are refused in one line. */
    @Test
    void aNumberPastWhatTheParserTakesIsRefused() throws Exception {
        Path version = dir.resolve("version.racelab");
        Files.writeString(version, OPENING.replace("\"version\":1", "\"version\":1e10001") + "\n" + HEADER + "\n",
                StandardCharsets.UTF_8);
        refused(replay(version), "'version' is not a whole number");
        Path runs = recording("runs.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]");
        Files.writeString(runs, Files.readString(runs).replace("\"runs\":1,", "\"runs\":1e10001,"));
        refused(replay(runs), "'runs' is not a whole number");
    }

    /** A recording's settings are held to the bounds the options are before {@code rerun} starts a server. */
    @Test
    void rerunRefusesSettingsNoOptionWouldTake() throws Exception {
        Path many = recording("many.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]");
        Files.writeString(many, Files.readString(many).replace("\"workers\":1,", "\"workers\":100000,"));
        CliRun workers = CliRun.of(Map.of("RACELAB_HOME", dir.resolve("home").toString()), "rerun", many.toString());
        refused(workers, "the recording asks for 100000 workers (lab counter runs ");
        Path forever = recording("forever.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]");
        Files.writeString(forever, Files.readString(forever).replace("\"timeoutMs\":10000,", "\"timeoutMs\":9000000000,"));
        CliRun timeout = CliRun.of(Map.of("RACELAB_HOME", dir.resolve("home").toString()), "rerun", forever.toString());
        refused(timeout, "the recording asks for a timeout of 9000000 s");
    }

    @Test
    void aServersReportOnALaneNeverAnnouncedIsRefused() throws Exception {
        refused(replay(recording("report.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                        "[1,0,1,\"ACTOR\",\"SERVER\",\"locks\"]", "[2,5,1,\"SERVER_HOLDS\",2000000000,\"row\"]")),
                "line 5", "reports on lane 2000000000");
    }

    @Test
    void anArrowToAnEventNotYetRecordedIsRefused() throws Exception {
        refused(replay(recording("arrow.racelab", "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                        "[1,0,1,\"ACTOR\",\"WORKER\",\"client-1\"]", "[2,5,1,\"WOKEN\",9,\"row lock\"]")),
                "line 5", "points back to event 9");
    }

    /** A run with the most lanes a recording may have: its own and 4,095 workers'. */
    private Path mostLanes() throws Exception {
        String[] events = new String[RecordingFormat.MAX_LANES];
        events[0] = "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]";
        for (int lane = 1; lane < events.length; lane++) {
            events[lane] = "[" + lane + ",0," + lane + ",\"ACTOR\",\"WORKER\",\"client-" + lane + "\"]";
        }
        return recording("most lanes.racelab", events);
    }

    private CliRun png(Path file, String... scale) {
        List<String> args = new ArrayList<>(List.of("export", file.toString(), "--format", "png", "--out",
                dir.resolve("lanes.png").toString()));
        args.addAll(List.of(scale));
        return CliRun.of(Map.of("RACELAB_HOME", dir.resolve("home").toString()), args.toArray(String[]::new));
    }

    /**
     * A PNG of the most lanes, some 24,700 pixels tall, at a scale that would need more pixels than
     * a PNG is drawn with is refused in one line naming its size and the scale that fits (at scale 8
     * the image was past what Java draws, a stack trace; at 4 it needed 2.5 GB).
     */
    @Test
    void aPngTooLargeForItsScaleIsRefusedNamingTheScaleThatFits() throws Exception {
        Path file = mostLanes();
        refused(png(file, "--scale", "8"), "--scale 8", "12800 × 19", "pixels", "use --scale 1");
        refused(png(file, "--scale", "4"), "--scale 4", "6400 × 98", "pixels", "use --scale 1");
        assertFalse(Files.exists(dir.resolve("lanes.png")), "nothing written");
    }

    /** Without {@code --scale}, such a PNG is drawn at the scale that fits, 1, instead of the usual 2. */
    @Test
    void aTallPngWithoutAScaleIsDrawnAtTheScaleThatFits() throws Exception {
        CliRun result = png(mostLanes());
        assertEquals(0, result.code(), result.err().toString());
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(dir.resolve("lanes.png").toFile());
        assertEquals(1600, image.getWidth());
    }

    @Test
    void aLineLongerThanARecordingsLongestIsRefusedQuotingItsStartOnly() throws Exception {
        Path file = dir.resolve("long line.racelab");
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write((OPENING + "\n{\"type\":\"").getBytes(StandardCharsets.UTF_8));
            byte[] block = new byte[1 << 16];
            Arrays.fill(block, (byte) 'x');
            for (int i = 0; i < 160; i++) {
                out.write(block);
            }
            out.write("\"}\n".getBytes(StandardCharsets.UTF_8));
        }
        refused(replay(file), "line 2", "longer than");
    }

    @Test
    void aFilesLongTextIsQuotedAsAShortExcerpt() throws Exception {
        String name = "x".repeat(100_000);
        Path file = recording("long lab.racelab").resolveSibling("long lab.racelab");
        Files.writeString(file, Files.readString(file).replace("\"lab\":\"counter\"", "\"lab\":\"" + name + "\""));
        CliRun result = replay(file);
        refused(result, "is a recording of the lab 'xxx");
        assertFalse(result.err().get(0).contains(name), "not the whole name");
    }
}
