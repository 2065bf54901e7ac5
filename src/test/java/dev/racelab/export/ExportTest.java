package dev.racelab.export;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;
import dev.racelab.cli.Cli;
import dev.racelab.engine.Actor;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingWriter;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recording of two real counter runs — read-modify-write losing increments, select-for-update
 * with PostgreSQL's lock table on its server lane — exported by {@code racelab export}: the Chrome
 * trace is valid Trace Event Format with a process per run and a named thread per lane, every
 * state a slice and every violation an instant; the CSV holds every event, a line each.
 */
@Tag("lab")
class ExportTest {

    @TempDir
    static Path dir;
    private static List<RunRecord> runs;
    private static Path recording;

    @BeforeAll
    static void record() throws Exception {
        Lab counter = new Labs(TestServers.backends()).find("counter").orElseThrow();
        RunSpec base = counter.defaults().withWorkers(3).withOps(4).withObserve(true)
                .withGates(GatePlan.NONE.with("after-read", GateRule.fixed(5)));
        runs = new ArrayList<>();
        for (String strategy : List.of("read-modify-write", "select-for-update")) {
            Run run = new Run(counter, base.withStrategy(strategy), Clock.system());
            run.start();
            run.awaitOutcome(Duration.ofSeconds(60));
            runs.add(run.record());
        }
        recording = dir.resolve("two runs.racelab");
        try (RecordingWriter writer = RecordingWriter.create(recording)) {
            for (RunRecord run : runs) {
                writer.write(counter, run);
            }
            writer.commit(1, 0, false);
        }
    }

    private static int export(String format, Path out) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = TestServers.childEnvironment();
        return new Cli(env, DataHome.resolve(env), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(List.of("export", recording.toString(), "--format", format, "--out", out.toString()));
    }

    @Test
    void theTraceIsTraceEventFormatWithAProcessPerRunAndAThreadPerLane() throws Exception {
        Path out = dir.resolve("trace.json");
        assertEquals(0, export("trace", out));
        JsonObject trace = JsonParser.parseString(Files.readString(out)).getAsJsonObject();
        JsonArray events = trace.getAsJsonArray("traceEvents");
        Set<String> phases = Set.of("M", "X", "i", "b", "e", "C", "s", "f");
        for (int r = 0; r < runs.size(); r++) {
            int pid = r + 1;
            RunRecord run = runs.get(r);
            Map<Integer, String> lanes = new HashMap<>();
            int violations = 0;
            for (Event e : run.events().snapshot()) {
                if (e.kind() == EventKind.ACTOR) {
                    lanes.put(e.actor(), Actor.Kind.values()[(int) e.value()] == Actor.Kind.RUN ? "run" : e.subject());
                }
                violations += e.kind() == EventKind.VIOLATION ? 1 : 0;
            }
            Map<Integer, String> threads = new HashMap<>();
            Map<Integer, List<double[]>> slices = new HashMap<>();
            Map<String, Integer> asyncOpen = new HashMap<>();
            int instantsOfViolations = 0;
            boolean processNamed = false;
            for (JsonElement element : events) {
                JsonObject e = element.getAsJsonObject();
                String ph = e.get("ph").getAsString();
                assertTrue(phases.contains(ph), e.toString());
                if (e.get("pid").getAsInt() != pid) {
                    continue;
                }
                assertTrue(ph.equals("M") || e.get("ts").getAsDouble() >= 0, e.toString());
                switch (ph) {
                    case "M" -> {
                        if (e.get("name").getAsString().equals("thread_name")) {
                            threads.put(e.get("tid").getAsInt(), e.getAsJsonObject("args").get("name").getAsString());
                        }
                        processNamed |= e.get("name").getAsString().equals("process_name")
                                && e.getAsJsonObject("args").get("name").getAsString().contains(run.outcome().banner());
                    }
                    case "X" -> {
                        assertTrue(e.get("dur").getAsDouble() >= 0, e.toString());
                        slices.computeIfAbsent(e.get("tid").getAsInt(), t -> new ArrayList<>())
                                .add(new double[] {e.get("ts").getAsDouble(), e.get("dur").getAsDouble()});
                    }
                    case "b" -> asyncOpen.merge(e.get("id").getAsString(), 1, Integer::sum);
                    case "e" -> asyncOpen.merge(e.get("id").getAsString(), -1, Integer::sum);
                    case "i" -> instantsOfViolations += e.get("cat").getAsString().equals("violation") ? 1 : 0;
                    default -> { }
                }
            }
            assertTrue(processNamed, "run " + pid + " is a process named by its verdict");
            assertEquals(lanes, threads, "a named thread per lane of run " + pid);
            assertTrue(lanes.values().containsAll(List.of("client-1", "client-2", "client-3")), lanes.toString());
            assertTrue(lanes.size() > 4, "server lanes too: " + lanes);
            for (Map.Entry<Integer, List<double[]>> lane : slices.entrySet()) {
                List<double[]> s = lane.getValue();
                for (int i = 1; i < s.size(); i++) {
                    assertTrue(s.get(i - 1)[0] + s.get(i - 1)[1] <= s.get(i)[0] + 0.001,
                            "states follow one another on " + threads.get(lane.getKey()));
                }
            }
            assertTrue(slices.keySet().containsAll(List.of(1, 2, 3)), "every worker has its states: " + slices.keySet());
            asyncOpen.forEach((id, balance) -> assertEquals(0, balance, "server slice " + id + " begins and ends"));
            assertEquals(violations, instantsOfViolations, "every ✕ of run " + pid);
        }
        assertTrue(runs.get(0).outcome().verdict().name().equals("RACE"), runs.get(0).outcome().banner());
    }

    @Test
    void theCsvHasALinePerEventOfEveryRun() throws Exception {
        Path out = dir.resolve("events.csv");
        assertEquals(0, export("csv", out));
        List<String> lines = Files.readAllLines(out);
        assertEquals(CsvExport.HEADER, lines.get(0));
        long events = runs.stream().mapToLong(r -> r.events().size()).sum();
        assertEquals(events, lines.size() - 1, "a line per event");
        Set<String> kinds = new HashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            kinds.add(line.split(",")[6]);
        }
        assertTrue(kinds.containsAll(List.of("STATE", "VIOLATION", "SERVER_HOLDS")), kinds.toString());
    }

    private static int export(String... args) {
        Map<String, String> env = TestServers.childEnvironment();
        List<String> line = new ArrayList<>(List.of("export", recording.toString()));
        line.addAll(List.of(args));
        return new Cli(env, DataHome.resolve(env), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream())).run(line);
    }

    @Test
    void theTimelineAsSvgIsXmlWithEveryLaneNamedInRealText() throws Exception {
        Path out = dir.resolve("timeline.svg");
        assertEquals(0, export("--format", "svg", "--out", out.toString(), "--run", "2"));
        org.w3c.dom.Document svg = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(out.toFile());
        List<String> texts = new ArrayList<>();
        org.w3c.dom.NodeList nodes = svg.getElementsByTagName("text");
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent());
        }
        RunRecord second = runs.get(1);
        for (Event e : second.events().snapshot()) {
            if (e.kind() == EventKind.ACTOR && Actor.Kind.values()[(int) e.value()] != Actor.Kind.RUN) {
                assertTrue(texts.contains(e.subject()), e.subject() + " among " + texts);
            }
        }
        assertTrue(texts.contains(second.outcome().banner()), "the verdict heads it: " + texts);
    }

    @Test
    void theTimelineAsPngIsAnImageAtTheScaleAsked() throws Exception {
        Path out = dir.resolve("timeline.png");
        assertEquals(0, export("--format", "png", "--out", out.toString(), "--scale", "3", "--from", "0", "--to", "50"));
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(out.toFile());
        assertEquals((int) Math.ceil(TimelinePicture.WIDTH * 3), image.getWidth());
    }

    @Test
    void theLabsPictureAsSvgShowsTheVerdictsNumber() throws Exception {
        Path out = dir.resolve("picture.svg");
        assertEquals(0, export("--format", "svg", "--picture", "--run", "1", "--out", out.toString()));
        String svg = Files.readString(out);
        long lost = runs.get(0).outcome().metrics().get("lostIncrements").longValue();
        assertTrue(lost > 0, runs.get(0).outcome().banner());
        assertTrue(svg.contains(">lost</text>") && svg.contains(">" + lost + "</text>"), "lost " + lost + ": " + svg);
    }

    @Test
    void exportChoicesThatDoNotFitAreBadUsage() {
        assertEquals(2, export("--format", "svg", "--scale", "2", "--out", dir.resolve("a.svg").toString()));
        assertEquals(2, export("--format", "png", "--run", "9", "--out", dir.resolve("a.png").toString()));
        assertEquals(2, export("--format", "csv", "--picture", "--out", dir.resolve("a.csv").toString()));
        assertEquals(2, export("--format", "png", "--from", "50", "--to", "10", "--out", dir.resolve("b.png").toString()));
        assertFalse(Files.exists(dir.resolve("a.svg")) || Files.exists(dir.resolve("a.png")));
    }

    @Test
    void anExportThatCannotBeWrittenIsBadUsageAndLeavesNothing() throws Exception {
        assertEquals(2, export("trace", dir.resolve("no such folder/trace.json")));
        assertEquals(2, export("bogus", dir.resolve("x.out")));
        assertFalse(Files.exists(dir.resolve("x.out")));
    }

    @Test
    void aFieldWithACommaOrAQuoteIsQuoted() {
        assertEquals("plain", CsvExport.field("plain"));
        assertEquals("\"a, b\"", CsvExport.field("a, b"));
        assertEquals("\"say \"\"hi\"\"\"", CsvExport.field("say \"hi\""));
    }
}
