package dev.racelab.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.RunRecord;
import dev.racelab.export.CsvExport;
import dev.racelab.export.TraceExport;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code replay} and the CSV and trace exports read a recording as it goes, and say what they said
 * when they held it whole. The recording is two real counter runs (read-modify-write losing
 * increments, select-for-update with its lock waits and wake-ups), observed, with PostgreSQL's
 * lock table and the counter on server lanes; the expected CSV and trace were written by
 * {@code racelab export} of main at fca3af5, which read the whole recording first, and written
 * again when times came to count from each run's start ({@code TimeOrigin}: every time shifted
 * by the run's start, nothing else changed but the state slices' {@code seq}). No server is
 * involved.
 */
@Tag("engine")
class StreamedOutputTest {

    private static final String GOLDEN = "/dev/racelab/export/golden/two-counter-runs";

    @TempDir
    Path dir;
    private Path recording;

    @BeforeEach
    void copy() throws Exception {
        recording = dir.resolve("two counter runs.racelab");
        Files.write(recording, golden(".racelab"));
    }

    private static byte[] golden(String ending) throws Exception {
        try (InputStream in = StreamedOutputTest.class.getResourceAsStream(GOLDEN + ending)) {
            return in.readAllBytes();
        }
    }

    private String cli(String... args) {
        CliRun run = CliRun.of(Map.of("RACELAB_HOME", dir.resolve("home").toString()), args);
        assertEquals(0, run.code(), run.err().toString());
        return run.out();
    }

    private List<RunRecord> whole() throws Exception {
        try (Backends unstarted = new Backends(BackendSettings.embedded(), dir.resolve("home"), StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            return new RecordingReader(labs).read(recording).runs();
        }
    }

    @Test
    void theCsvIsTheSameByteForByte() throws Exception {
        Path out = dir.resolve("events.csv");
        cli("export", recording.toString(), "--format", "csv", "--out", out.toString());
        assertEquals(new String(golden(".csv"), StandardCharsets.UTF_8), Files.readString(out));
        StringWriter window = new StringWriter();
        CsvExport.write(whole(), window);
        assertEquals(Files.readString(out), window.toString(), "the window's export of the runs in memory");
    }

    @Test
    void theTraceHasTheSameEventsInTheSameOrderEachRunNamedAtItsEnd() throws Exception {
        Path out = dir.resolve("trace.json");
        cli("export", recording.toString(), "--format", "trace", "--out", out.toString());
        Trace expected = Trace.of(new String(golden(".trace.json"), StandardCharsets.UTF_8));
        Trace streamed = Trace.of(Files.readString(out));
        assertEquals(expected.events(), streamed.events());
        assertEquals(expected.names(), streamed.names());
        assertEquals(2, streamed.names().size(), "a process named per run: " + streamed.names());
        java.io.ByteArrayOutputStream window = new java.io.ByteArrayOutputStream();
        TraceExport.write(whole(), window);
        assertEquals(Files.readString(out), window.toString(StandardCharsets.UTF_8),
                "the window's export of the runs in memory");
    }

    @Test
    void replayPrintsWhatTheRunsHeldWholeSumUpTo() throws Exception {
        Summary whole;
        try (Backends unstarted = new Backends(BackendSettings.embedded(), dir.resolve("home"), StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            whole = new Summary(labs.find("counter").orElseThrow());
            Recording recording = new RecordingReader(labs).read(this.recording);
            recording.runs().forEach(whole::add);
            whole.times(recording.elapsedMs(), recording.startupMs(), recording.interrupted());
            whole.batch(recording.planned(), recording.serverFailure());
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        whole.print(new PrintStream(text, true, StandardCharsets.UTF_8));
        assertEquals(text.toString(StandardCharsets.UTF_8), cli("replay", recording.toString()));
        JsonObject json = JsonParser.parseString(cli("replay", recording.toString(), "--json")).getAsJsonObject();
        assertEquals(JsonParser.parseString(new com.google.gson.Gson().toJson(whole.toJson())), json);
        assertTrue(json.get("events").getAsLong() > 300, json.toString());
    }

    /** A trace's events but the processes' names, in order; and those names. */
    private record Trace(List<JsonElement> events, Set<JsonElement> names) {
        static Trace of(String json) {
            JsonArray all = JsonParser.parseString(json).getAsJsonObject().getAsJsonArray("traceEvents");
            List<JsonElement> events = new ArrayList<>();
            Set<JsonElement> names = new HashSet<>();
            for (JsonElement e : all) {
                if (e.getAsJsonObject().get("name").getAsString().equals("process_name")) {
                    names.add(e);
                } else {
                    events.add(e);
                }
            }
            return new Trace(events, names);
        }
    }
}
