package dev.racelab.export;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Printable;
import dev.racelab.engine.RunRecord;

import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs' events as CSV (RFC 4180, a header line, then one line per event of every run, in order),
 * for a spreadsheet or a notebook: which run, its sequence number, the time in milliseconds from
 * the run's first event, the lane (id, name, kind), the event's kind, subject and value, and for
 * a state change the state's name.
 */
public final class CsvExport {

    public static final String HEADER = "run,seq,time_ms,actor,actor_name,actor_kind,kind,subject,value,state";

    private CsvExport() {
    }

    public static void write(List<RunRecord> runs, Writer out) throws IOException {
        out.write(HEADER);
        out.write("\r\n");
        for (int i = 0; i < runs.size(); i++) {
            write(i + 1, runs.get(i), out);
        }
        out.flush();
    }

    private static void write(int run, RunRecord record, Writer out) throws IOException {
        Map<Integer, Actor> actors = new HashMap<>();
        long origin = Long.MIN_VALUE;
        List<Event> events = record.events().snapshot();
        for (Event e : events) {
            if (e.kind() != EventKind.ACTOR) {
                origin = e.nanos();
                break;
            }
        }
        for (Event e : events) {
            if (e.kind() == EventKind.ACTOR) {
                actors.put(e.actor(), new Actor(e.actor(), e.subject(), Actor.Kind.values()[(int) e.value()]));
            }
            Actor actor = actors.get(e.actor());
            String state = e.kind() == EventKind.STATE ? ActorState.byOrdinal(e.value()).name() : "";
            double ms = origin == Long.MIN_VALUE ? 0 : Math.max(0, e.nanos() - origin) / 1_000_000.0;
            out.write(run + "," + e.seq() + "," + String.format(java.util.Locale.ROOT, "%.3f", ms) + ","
                    + e.actor() + "," + field(actor == null ? "" : actor.name()) + ","
                    + (actor == null ? "" : actor.kind().name()) + "," + e.kind().name() + ","
                    + field(e.subject() == null ? "" : e.subject()) + "," + e.value() + "," + state + "\r\n");
        }
    }

    /**
     * A field: its control characters shown as escapes ({@link Printable#field}: a line feed kept,
     * which RFC 4180 allows in a quoted field), quoted when it holds a comma, a quote or a line
     * break (quotes doubled).
     */
    static String field(String raw) {
        String text = Printable.field(raw);
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }
}
