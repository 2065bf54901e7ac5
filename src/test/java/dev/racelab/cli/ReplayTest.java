package dev.racelab.cli;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.RunRecord;
import dev.racelab.export.CsvExport;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingFormat;
import dev.racelab.record.RecordingReader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code racelab replay} on files that are not whole recordings: each is refused with exit 2
 * and one line that names the file and what is wrong, and the file is left as it was. No server
 * is involved: replay never starts one.
 */
@Tag("engine")
class ReplayTest {

    /** A whole recording of a run of the counter lab, as RaceLab writes it. */
    private static final String WHOLE = String.join("\n",
            "{\"format\":\"racelab-recording\",\"version\":1}",
            "{\"type\":\"run\",\"run\":1,\"lab\":\"counter\",\"strategy\":\"read-modify-write\",\"workers\":1,"
                    + "\"ops\":1,\"seed\":1,\"timeoutMs\":10000,\"stepMode\":false,\"observe\":false,"
                    + "\"gates\":\"after-read=5\",\"switches\":{},\"startedAt\":\"2026-11-23T10:00:00Z\","
                    + "\"backend\":{\"postgres\":\"PostgreSQL 17.2 at 127.0.0.1:5432\"}}",
            "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
            "[1,0,1,\"ACTOR\",\"WORKER\",\"client-1\"]",
            "[2,10,0,\"RUN_STARTED\",1,\"read-modify-write\"]",
            "[3,20,1,\"STATE\",\"RUNNING\",null]",
            "[4,30,1,\"STATE\",\"DONE\",null]",
            "[5,40,0,\"RUN_ENDED\",0,\"SAFE\"]",
            "{\"type\":\"outcome\",\"verdict\":\"SAFE\",\"headline\":\"all 1 increments counted\",\"explanation\":"
                    + "\"The counter ended at 1.\",\"violations\":{},\"metrics\":{\"finalValue\":1,\"opsPerSec\":12.5},"
                    + "\"places\":[],\"events\":6,\"droppedEvents\":0}",
            "{\"type\":\"end\",\"runs\":1,\"elapsedMs\":120,\"startupMs\":0}", "");

    @TempDir
    Path dir;

    private record Result(int code, String out, List<String> err) {
    }

    private Result replay(Path file, String... more) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of("RACELAB_HOME", dir.resolve("home").toString());
        String[] args = new String[more.length + 2];
        args[0] = "replay";
        args[1] = file.toString();
        System.arraycopy(more, 0, args, 2, more.length);
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(Arrays.asList(args));
        String errText = err.toString(StandardCharsets.UTF_8);
        return new Result(code, out.toString(StandardCharsets.UTF_8), errText.isEmpty() ? List.of()
                : List.of(errText.split("\n")));
    }

    private Path write(String name, byte[] content) throws Exception {
        Path file = dir.resolve(name);
        Files.write(file, content);
        return file;
    }

    private void refused(Path file, String because) throws Exception {
        byte[] before = Files.readAllBytes(file);
        Result result = replay(file);
        assertEquals(2, result.code(), result.err().toString());
        assertEquals(1, result.err().size(), "one line: " + result.err());
        assertTrue(result.err().get(0).startsWith("racelab: " + file), result.err().get(0));
        assertTrue(result.err().get(0).contains(because), result.err().get(0));
        assertEquals("", result.out());
        assertArrayEquals(before, Files.readAllBytes(file), "the file is unchanged");
    }

    @Test
    void aWholeRecordingReplaysItsSummary() throws Exception {
        Result result = replay(write("whole.racelab", WHOLE.getBytes(StandardCharsets.UTF_8)));
        assertEquals(0, result.code(), result.err().toString());
        assertTrue(result.out().startsWith("counter · read-modify-write · 1 client × 1 op · after-read=5\n"
                + "SAFE — all 1 increments counted\n"), result.out());
        assertTrue(result.out().contains("finalValue 1 · opsPerSec 12.5"), result.out());
        assertTrue(result.out().contains("120 ms · 6 events"), result.out());
    }

    @Test
    void aTruncatedRecordingIsRefused() throws Exception {
        String cut = WHOLE.substring(0, WHOLE.indexOf("[4,30"));
        refused(write("cut.racelab", cut.getBytes(StandardCharsets.UTF_8)), "ends before it is complete");
    }

    @Test
    void aRecordingCutInTheMiddleOfALineIsRefused() throws Exception {
        String cut = WHOLE.substring(0, WHOLE.indexOf("\"DONE\""));
        refused(write("mid-line.racelab", cut.getBytes(StandardCharsets.UTF_8)), "is damaged");
    }

    @Test
    void anEmptyFileIsRefused() throws Exception {
        refused(write("empty.racelab", new byte[0]), "is empty");
    }

    @Test
    void aJsonFileOfSomethingElseIsRefused() throws Exception {
        refused(write("package.json", "{\"name\":\"left-pad\",\"version\":\"1.3.0\"}\n"
                .getBytes(StandardCharsets.UTF_8)), "is not a RaceLab recording");
    }

    @Test
    void aBinaryFileIsRefused() throws Exception {
        refused(write("image.png", new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, (byte) 0xff, (byte) 0xfe}),
                "is not a RaceLab recording");
    }

    @Test
    void aRecordingFromANewerRaceLabIsRefused() throws Exception {
        String newer = WHOLE.replace("\"version\":1}", "\"version\":" + (RecordingFormat.VERSION + 1) + "}");
        refused(write("newer.racelab", newer.getBytes(StandardCharsets.UTF_8)), "newer RaceLab");
    }

    @Test
    void aVersionOneRecordingCountsFromTheRunsStartAsRecordingsNowDo() throws Exception {
        // Version 1 counted t from the run's first event; its start (RUN_STARTED) is at t = 10 here.
        Path old = write("old.racelab", WHOLE.getBytes(StandardCharsets.UTF_8));
        Labs labs = new Labs(new Backends(BackendSettings.embedded(), dir, StartupListener.SILENT));
        RecordingReader reader = new RecordingReader(labs);
        RunRecord run = reader.read(old).last();
        assertEquals(List.of(-10L, -10L, 0L, 10L, 20L, 30L), java.util.stream.LongStream.range(0, 6)
                .mapToObj(seq -> run.events().get(seq).nanos()).toList());
        StringWriter csv = new StringWriter();
        reader.read(old, new CsvExport(csv));
        List<String> lines = List.of(csv.toString().split("\r\n"));
        assertEquals("1,0,-0.000,0,run,RUN,ACTOR", lines.get(1).substring(0, 26), "before the start: negative");
        assertTrue(lines.get(3).startsWith("1,2,0.000,0,run,RUN,RUN_STARTED"), lines.get(3));
    }

    @Test
    void aRecordingOfALabThisRaceLabLacksIsRefused() throws Exception {
        String foreign = WHOLE.replace("\"lab\":\"counter\"", "\"lab\":\"teleporter\"");
        refused(write("teleporter.racelab", foreign.getBytes(StandardCharsets.UTF_8)), "'teleporter'");
    }

    @Test
    void aMissingFileIsNamed() throws Exception {
        Result result = replay(dir.resolve("nowhere.racelab"));
        assertEquals(2, result.code());
        assertEquals(List.of("racelab: " + dir.resolve("nowhere.racelab") + " does not exist"), result.err());
    }
}
