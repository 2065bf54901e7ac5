package dev.racelab.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.engine.Actor;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.view.timeline.HoverText;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.export.CsvExport;
import dev.racelab.export.TraceExport;
import dev.racelab.record.RecordingReader;

import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One event, one time: for a recording, a sample of its events after the run's start (state
 * changes and marks on the workers' lanes) shows the same time in the recording's {@code t}, the
 * CSV's {@code time_ms}, the Chrome trace's {@code ts} (found by the {@code seq} in its
 * arguments) and the hover text of each timeline given (opened from the file, or followed live).
 */
final class SameTimeEverywhere {

    /** How many events of each sort are checked per recording, at most. */
    private static final int SAMPLE = 12;

    private SameTimeEverywhere() {
    }

    static void check(Path file, RecordingReader reader, List<TimelineModel> timelines) throws Exception {
        Map<Long, long[]> recorded = new HashMap<>();
        List<Long> states = new ArrayList<>();
        List<Long> marks = new ArrayList<>();
        TimelineModel any = timelines.get(0);
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.startsWith("[")) {
                continue;
            }
            JsonArray a = JsonParser.parseString(line).getAsJsonArray();
            long seq = a.get(0).getAsLong();
            long t = a.get(1).getAsLong();
            int actor = a.get(2).getAsInt();
            EventKind kind = EventKind.valueOf(a.get(3).getAsString());
            recorded.put(seq, new long[] {t, actor});
            boolean worker = actor < any.laneCount() && any.lanes.get(actor).kind == Actor.Kind.WORKER;
            if (t > 0 && worker && kind == EventKind.STATE) {
                states.add(seq);
            } else if (t > 0 && worker && kind.marked() && !kind.note()) {
                marks.add(seq);
            }
        }
        assertTrue(!states.isEmpty(), "the run has state changes after its start");

        StringWriter csvText = new StringWriter();
        reader.read(file, new CsvExport(csvText));
        Map<Long, String> csv = new HashMap<>();
        for (String line : csvText.toString().split("\r\n")) {
            String[] fields = line.split(",", 4);
            if (fields[0].equals("1")) {
                csv.put(Long.parseLong(fields[1]), fields[2]);
            }
        }
        ByteArrayOutputStream traceBytes = new ByteArrayOutputStream();
        reader.read(file, new TraceExport(traceBytes));
        Map<Long, BigDecimal> trace = new HashMap<>();
        for (JsonElement element : JsonParser.parseString(traceBytes.toString(StandardCharsets.UTF_8))
                .getAsJsonObject().getAsJsonArray("traceEvents")) {
            JsonObject e = element.getAsJsonObject();
            if (e.has("args") && e.getAsJsonObject("args").has("seq") && e.has("ts")) {
                trace.put(e.getAsJsonObject("args").get("seq").getAsLong(), e.get("ts").getAsBigDecimal());
            }
        }

        // A state change's hover says its segment began then; a mark's, that it happened then.
        everywhere(sample(states), ", from ", "its state began then", recorded, csv, trace, timelines);
        everywhere(sample(marks), " at ", "it happened then", recorded, csv, trace, timelines);
    }

    private static void everywhere(List<Long> seqs, String before, String what, Map<Long, long[]> recorded,
                                   Map<Long, String> csv, Map<Long, BigDecimal> trace, List<TimelineModel> timelines) {
        for (long seq : seqs) {
            long t = recorded.get(seq)[0];
            same(seq, t, csv, trace);
            for (TimelineModel timeline : timelines) {
                List<String> hover = hover(timeline, recorded.get(seq), t);
                assertTrue(hover.stream().anyMatch(l -> l.endsWith(before + HoverText.time(t))),
                        "event " + seq + " at " + t + " ns: the hover says " + what + ", " + hover);
            }
        }
    }

    /** The recording's {@code t}, the CSV's milliseconds and the trace's microseconds agree. */
    private static void same(long seq, long t, Map<Long, String> csv, Map<Long, BigDecimal> trace) {
        String ms = csv.get(seq);
        assertNotNull(ms, "event " + seq + " is in the CSV");
        assertEquals(String.format("%.3f", t / 1e6), ms, "event " + seq + ": the CSV's time is the recording's");
        BigDecimal ts = trace.get(seq);
        assertNotNull(ts, "event " + seq + " is in the trace with its seq");
        assertEquals(0, ts.movePointRight(3).compareTo(BigDecimal.valueOf(t)),
                "event " + seq + ": the trace's " + ts + " µs is the recording's " + t + " ns");
    }

    private static List<String> hover(TimelineModel timeline, long[] event, long t) {
        Lane lane = timeline.lane((int) event[1]);
        return HoverText.at(timeline, lane, t, 1.0, timeline.latest());
    }

    private static List<Long> sample(List<Long> seqs) {
        List<Long> some = new ArrayList<>();
        int step = Math.max(1, seqs.size() / SAMPLE);
        for (int i = 0; i < seqs.size() && some.size() < SAMPLE; i += step) {
            some.add(seqs.get(i));
        }
        return some;
    }
}
