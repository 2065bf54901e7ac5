package dev.racelab.export;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.SwitchValues;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Notes are words for people and facts for a lab's view, never instants in a trace: a fenced
 * write replaced and a philosopher's wait in the cycle stay out of the Chrome trace, as a plain
 * note does, while a mark beside them is in it. And the CSV writes the largest and smallest times
 * a file may hold without overflowing.
 */
@Tag("engine")
class NotesInExportsTest {

    @Test
    void theTraceHasTheMarksButNotTheNotes() throws Exception {
        RunSpec spec = new RunSpec("blind-write", 1, 1, GatePlan.NONE, 1, Duration.ofSeconds(10), false, false,
                SwitchValues.DEFAULTS);
        List<Event> events = List.of(
                new Event(0, 0, 0, EventKind.ACTOR, "run", 0),
                new Event(1, 0, 1, EventKind.ACTOR, "client-1", 1),
                new Event(2, 10, 0, EventKind.RUN_STARTED, "blind-write", 1),
                new Event(3, 20, 1, EventKind.WRITE_ACCEPTED, "price", 7),
                new Event(4, 21, 1, EventKind.REPLACED, null, 6),
                new Event(5, 22, 1, EventKind.WAITS_FOR, "fork 2, held by philosopher-2", 2),
                new Event(6, 23, 1, EventKind.NOTE, "a note", 0),
                new Event(7, 30, 0, EventKind.RUN_ENDED, "SAFE", 0));
        RunRecord record = RunRecord.loaded(new RunHeader("fencing", spec, Instant.EPOCH), events, 0,
                new Outcome(dev.racelab.engine.Verdict.SAFE, "safe", "safe", Map.of(), Map.of(), List.of()), Map.of());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TraceExport.write(List.of(record), out);
        List<String> kinds = new ArrayList<>();
        for (JsonElement e : JsonParser.parseString(out.toString(StandardCharsets.UTF_8)).getAsJsonObject()
                .getAsJsonArray("traceEvents")) {
            if (e.getAsJsonObject().has("args") && e.getAsJsonObject().getAsJsonObject("args").has("kind")) {
                kinds.add(e.getAsJsonObject().getAsJsonObject("args").get("kind").getAsString());
            }
        }
        assertTrue(kinds.contains("WRITE_ACCEPTED"), kinds.toString());
        for (EventKind note : EventKind.values()) {
            if (note.note()) {
                assertTrue(!kinds.contains(note.name()), note + " is not an instant: " + kinds);
            }
        }
    }

    @Test
    void theCsvWritesTheExtremesOfTimeWithoutOverflow() {
        assertEquals("9223372036854.776", ms(Long.MAX_VALUE));
        assertEquals("-9223372036854.776", ms(Long.MIN_VALUE));
        assertEquals("-0.002", ms(-1_500));
        assertEquals("0.001", ms(500));
    }

    private static String ms(long nanos) {
        StringBuilder b = new StringBuilder();
        CsvExport.milliseconds(b, nanos);
        return b.toString();
    }
}
