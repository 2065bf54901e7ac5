package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.RunRecord;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingReader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A crafted recording whose text fields carry terminal escapes (set the window's title, clear the
 * screen, a C1 control sequence introducer, a right-to-left override, DEL, a lone carriage return):
 * {@code replay}, its refusal lines and the exports show them as visible escapes ({@code \x1b}),
 * never as the bytes a terminal or a viewer would act on; the JSON summary keeps the exact text in
 * JSON's own escapes; the CSV stays RFC 4180 and the SVG stays XML; the window, which shows what
 * it reads, reads them as escapes but for line breaks. No server is involved.
 */
@Tag("engine")
class HostileTextTest {

    /** Sets the terminal's title to "pwned", rings its bell and clears the screen. */
    private static final String TITLE_AND_CLEAR = "\\u001b]0;pwned\\u0007\\u001b[2J";
    /** The same as raw characters, for what must never appear in output. */
    private static final String RAW_ESC = "\u001b";

    private static String recording(String lab) {
        return String.join("\n",
                "{\"format\":\"racelab-recording\",\"version\":1}",
                "{\"type\":\"run\",\"run\":1,\"lab\":\"" + lab + "\",\"strategy\":\"read-modify-write\",\"workers\":1,"
                        + "\"ops\":1,\"seed\":1,\"timeoutMs\":10000,\"stepMode\":false,\"observe\":false,"
                        + "\"gates\":\"\",\"switches\":{},\"startedAt\":\"2026-11-23T10:00:00Z\","
                        + "\"backend\":{\"postgres" + TITLE_AND_CLEAR + "\":\"PostgreSQL\u009b2J 17.2\"}}",
                "[0,0,0,\"ACTOR\",\"RUN\",\"run\"]",
                "[1,0,1,\"ACTOR\",\"WORKER\",\"client" + TITLE_AND_CLEAR + "-1\"]",
                "[2,10,0,\"RUN_STARTED\",1,\"read-modify-write\"]",
                "[3,20,1,\"STATE\",\"RUNNING\",null]",
                "[4,25,1,\"STATE\",\"WAITING\",\"row\\r\\u001b[1Aforged\u202e\"]",
                "[5,26,1,\"VIOLATION\",1,\"lost\\u007f\\u0085\"]",
                "[6,30,1,\"STATE\",\"DONE\",null]",
                "[7,40,0,\"RUN_ENDED\",0,\"SAFE\"]",
                "{\"type\":\"outcome\",\"verdict\":\"SAFE\",\"headline\":\"all counted" + TITLE_AND_CLEAR + "\","
                        + "\"explanation\":\"The counter\\nended at 1.\u202egnirts\\r\",\"violations\":{\"lost"
                        + TITLE_AND_CLEAR + "\":1},\"metrics\":{\"final\\u001b[8mValue\":1},"
                        + "\"places\":[5],\"events\":8,\"droppedEvents\":0}",
                "{\"type\":\"end\",\"runs\":1,\"elapsedMs\":120,\"startupMs\":0}", "");
    }

    @TempDir
    Path dir;

    private CliRun cli(String... args) {
        return CliRun.of(Map.of("RACELAB_HOME", dir.resolve("home").toString()), args);
    }

    /** What {@code export --format FORMAT} of the crafted recording wrote. */
    private String exported(String format) throws Exception {
        Path out = dir.resolve("exported." + format);
        CliRun result = cli("export", crafted("hostile.racelab", "counter").toString(), "--format", format,
                "--out", out.toString());
        assertEquals(0, result.code(), result.err().toString());
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private Path crafted(String name, String lab) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, recording(lab), StandardCharsets.UTF_8);
        return file;
    }

    /** The characters a terminal acts on or a viewer reorders by, as found in {@code text}, apart from {@code allowed}. */
    private static List<String> controls(String text, String allowed) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 || c >= 0x7f && c < 0xa0 || c >= 0x202a && c <= 0x202e
                    || c >= 0x2066 && c <= 0x2069 || c == 0x200e || c == 0x200f || c == 0x061c;
            if (control && allowed.indexOf(c) < 0) {
                found.add(String.format("U+%04X at %d", (int) c, i));
            }
        }
        return found;
    }

    @Test
    void replayPrintsEscapesVisiblyAndActsOnNone() throws Exception {
        CliRun result = cli("replay", crafted("hostile.racelab", "counter").toString());
        assertEquals(0, result.code(), result.err().toString());
        assertEquals(List.of(), controls(result.out(), "\n"), result.out());
        assertTrue(result.out().contains("SAFE — all counted\\x1b]0;pwned\\x07\\x1b[2J"), result.out());
        assertTrue(result.out().contains("The counter\\nended at 1.\\u202egnirts\\r"), result.out());
        assertTrue(result.out().contains("PostgreSQL\\x9b2J 17.2"), result.out());
        assertTrue(result.out().contains("final\\x1b[8mValue 1"), result.out());
    }

    @Test
    void replaysJsonKeepsTheExactTextInJsonEscapes() throws Exception {
        CliRun result = cli("replay", crafted("hostile.racelab", "counter").toString(), "--json");
        assertEquals(0, result.code(), result.err().toString());
        assertEquals(List.of(), controls(result.out(), "\n"), result.out());
        JsonObject summary = JsonParser.parseString(result.out()).getAsJsonObject();
        assertEquals("all counted\u001b]0;pwned\u0007\u001b[2J", summary.get("headline").getAsString());
        assertEquals("The counter\nended at 1.\u202egnirts\r", summary.get("explanation").getAsString());
        assertEquals("PostgreSQL\u009b2J 17.2",
                summary.getAsJsonObject("backend").get("postgres\u001b]0;pwned\u0007\u001b[2J").getAsString());
    }

    @Test
    void aRefusalQuotesTheFilesTextEscaped() throws Exception {
        CliRun result = cli("replay", crafted("foreign.racelab", "tele" + TITLE_AND_CLEAR + "porter").toString());
        assertEquals(2, result.code());
        assertEquals(1, result.err().size(), result.err().toString());
        String refusal = result.err().get(0);
        assertEquals(List.of(), controls(refusal, ""), refusal);
        assertTrue(refusal.contains("'tele\\x1b]0;pwned\\x07\\x1b[2Jporter'"), refusal);
    }

    @Test
    void theCsvNeutralisesControlsAndStaysRfc4180() throws Exception {
        String csv = exported("csv");
        assertEquals(List.of(), controls(csv.replace("\r\n", ""), "\n\t"), csv);
        assertTrue(csv.contains(",client\\x1b]0;pwned\\x07\\x1b[2J-1,WORKER,STATE,"), csv);
        assertTrue(csv.contains(",row\\r\\x1b[1Aforged\\u202e,"), csv);
        assertTrue(csv.contains(",lost\\x7f\\x85,"), csv);
        assertEquals(9, csv.split("\r\n").length, "a header and a line per event: " + csv);
    }

    /** Fields a spreadsheet would run as formulas are written as text: an apostrophe first, quoted. */
    @Test
    void theCsvWritesNoFormulaASpreadsheetWouldRun() throws Exception {
        Path file = dir.resolve("formulas.racelab");
        Files.writeString(file, recording("counter")
                .replace("client" + TITLE_AND_CLEAR + "-1", "=HYPERLINK(\\\"http://x\\\")")
                .replace("row\\r\\u001b[1Aforged\u202e", "@SUM(1)")
                .replace("lost\\u007f\\u0085", "-2+3"), StandardCharsets.UTF_8);
        Path out = dir.resolve("formulas.csv");
        CliRun result = cli("export", file.toString(), "--format", "csv", "--out", out.toString());
        assertEquals(0, result.code(), result.err().toString());
        String csv = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(csv.contains(",\"'=HYPERLINK(\"\"http://x\"\")\",WORKER,STATE,"), csv);
        assertTrue(csv.contains(",\"'@SUM(1)\","), csv);
        assertTrue(csv.contains(",\"'-2+3\","), csv);
        for (String line : csv.split("\r\n")) {
            for (String field : line.split(",")) {
                assertTrue(field.isEmpty() || "=+@".indexOf(field.charAt(0)) < 0, "a formula in " + line);
            }
        }
    }

    @Test
    void theSvgStaysXmlAndShowsControlsAsEscapes() throws Exception {
        String svg = exported("svg");
        assertEquals(List.of(), controls(svg, "\n"), "no control characters in " + svg);
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertTrue(svg.contains("all counted\\x1b]0;pwned\\x07\\x1b[2J"), svg);
        assertTrue(svg.contains("client\\x1b]0;pwned\\x07\\x1b[2J-1"), svg);
    }

    /**
     * The PNG draws a file's controls as the SVG writes them, as visible escapes: its pixels are
     * those of the same recording with every control already written out as its escape (the raw
     * text was drawn, a right-to-left override turning the words after it around).
     */
    @Test
    void thePngDrawsControlsAsTheSameVisibleEscapes() throws Exception {
        Map<String, String> writtenOut = new java.util.LinkedHashMap<>();
        writtenOut.put("\\u001b", "\\\\x1b");
        writtenOut.put("\\u0007", "\\\\x07");
        writtenOut.put("\\u007f", "\\\\x7f");
        writtenOut.put("\\u0085", "\\\\x85");
        writtenOut.put("\\r", "\\\\r");
        writtenOut.put("\\n", "\\\\n");
        writtenOut.put("\u202e", "\\\\u202e");
        writtenOut.put("\u009b", "\\\\x9b");
        String escaped = recording("counter");
        for (Map.Entry<String, String> control : writtenOut.entrySet()) {
            escaped = escaped.replace(control.getKey(), control.getValue());
        }
        assertEquals(List.of(), controls(escaped, "\n"), escaped);
        Path plain = dir.resolve("escaped.racelab");
        Files.writeString(plain, escaped, StandardCharsets.UTF_8);
        assertEquals(0, differing(png(crafted("hostile.racelab", "counter")), png(plain)), "pixels that differ");
    }

    private Path png(Path recording) throws Exception {
        Path out = dir.resolve(recording.getFileName() + ".png");
        CliRun result = cli("export", recording.toString(), "--format", "png", "--scale", "1", "--out", out.toString());
        assertEquals(0, result.code(), result.err().toString());
        return out;
    }

    /** How many pixels of two pictures of one size differ. */
    private static int differing(Path png, Path other) throws Exception {
        java.awt.image.BufferedImage one = javax.imageio.ImageIO.read(png.toFile());
        java.awt.image.BufferedImage two = javax.imageio.ImageIO.read(other.toFile());
        assertEquals(one.getWidth() + "×" + one.getHeight(), two.getWidth() + "×" + two.getHeight());
        int differing = 0;
        for (int y = 0; y < one.getHeight(); y++) {
            for (int x = 0; x < one.getWidth(); x++) {
                differing += one.getRGB(x, y) == two.getRGB(x, y) ? 0 : 1;
            }
        }
        return differing;
    }

    @Test
    void theWindowsCopyOfARecordingShowsItsControlsAsEscapesButLineBreaks() throws Exception {
        RunRecord run;
        try (Backends unstarted = new Backends(BackendSettings.embedded(), dir.resolve("home"), StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            run = new RecordingReader(labs).read(crafted("hostile.racelab", "counter")).last();
        }
        assertEquals("all counted\\x1b]0;pwned\\x07\\x1b[2J", run.outcome().headline());
        assertEquals("The counter\nended at 1.\\u202egnirts\\r", run.outcome().explanation(), "a line break is kept");
        assertEquals(Map.of("postgres\\x1b]0;pwned\\x07\\x1b[2J", "PostgreSQL\\x9b2J 17.2"), run.backend());
        assertEquals(Set.of("lost\\x1b]0;pwned\\x07\\x1b[2J"), run.outcome().violations().keySet());
        List<String> subjects = new ArrayList<>();
        run.events().snapshot().forEach(e -> subjects.add(e.subject()));
        assertTrue(subjects.containsAll(List.of("client\\x1b]0;pwned\\x07\\x1b[2J-1", "row\\r\\x1b[1Aforged\\u202e",
                "lost\\x7f\\x85")), subjects.toString());
    }

    @Test
    void theTraceKeepsTheExactTextInJsonEscapes() throws Exception {
        String trace = exported("trace");
        assertEquals(List.of(), controls(trace, ""), trace);
        assertTrue(JsonParser.parseString(trace).toString().contains("forged\u202e"), trace);
    }
}
