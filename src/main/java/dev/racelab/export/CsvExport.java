package dev.racelab.export;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Printable;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.TimeOrigin;
import dev.racelab.record.RecordingEnd;
import dev.racelab.record.RecordingSink;

import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs' events as CSV (RFC 4180, a header line, then one line per event of every run, in order),
 * for a spreadsheet or a notebook: which run, its sequence number, the time in milliseconds from
 * the run's start ({@link TimeOrigin}; negative before it, while connecting), the lane (id, name,
 * kind), the event's kind, subject and value, and for a state change the state's name.
 *
 * <p>Written as the events go by ({@link RecordingSink}, which counts them from the run's
 * origin): what it keeps is a run's lanes.
 */
public final class CsvExport implements RecordingSink {

    public static final String HEADER = "run,seq,time_ms,actor,actor_name,actor_kind,kind,subject,value,state";

    private final Writer out;
    private final Map<Integer, Actor> actors = new HashMap<>();
    private int run;
    /** The line being made, reused. */
    private final StringBuilder text = new StringBuilder(160);

    /** A CSV to {@code out}, its header written; then the runs' events as they come. */
    public CsvExport(Writer out) throws IOException {
        this.out = out;
        out.write(HEADER);
        out.write("\r\n");
    }

    /** Writes {@code runs} (a recording's, in order, in memory) to {@code out}. */
    public static void write(List<RunRecord> runs, Writer out) throws IOException {
        CsvExport csv = new CsvExport(out);
        for (int i = 0; i < runs.size(); i++) {
            RunRecord record = runs.get(i);
            csv.run(i + 1, record.header(), record.backend());
            long origin = TimeOrigin.of(record.events());
            for (Event e : record.events().upToNow()) {
                csv.event(TimeOrigin.shifted(e, origin));
            }
            csv.outcome(record.outcome(), record.events().dropped());
        }
        out.flush();
    }

    @Override
    public void run(int number, RunHeader header, Map<String, String> backend) {
        run = number;
        actors.clear();
    }

    @Override
    public void event(Event e) throws IOException {
        line(e);
    }

    @Override
    public void end(RecordingEnd end) throws IOException {
        out.flush();
    }

    private void line(Event e) throws IOException {
        if (e.kind() == EventKind.ACTOR) {
            actors.put(e.actor(), new Actor(e.actor(), e.subject(), Actor.Kind.values()[(int) e.value()]));
        }
        Actor actor = actors.get(e.actor());
        StringBuilder b = text;
        b.setLength(0);
        b.append(run).append(',').append(e.seq()).append(',');
        milliseconds(b, e.nanos());
        b.append(',').append(e.actor()).append(',').append(field(actor == null ? "" : actor.name())).append(',')
                .append(actor == null ? "" : actor.kind().name()).append(',').append(e.kind().name()).append(',')
                .append(field(e.subject() == null ? "" : e.subject())).append(',').append(e.value()).append(',')
                .append(e.kind() == EventKind.STATE ? ActorState.byOrdinal(e.value()).name() : "").append("\r\n");
        out.append(b);
    }

    /**
     * {@code nanos} as milliseconds with three decimals, rounded half up, as {@code
     * String.format("%.3f")} writes {@code nanos / 1e6}, without its cost on every line.
     */
    static void milliseconds(StringBuilder b, long nanos) {
        if (nanos < 0) {
            b.append('-');
            nanos = nanos == Long.MIN_VALUE ? Long.MAX_VALUE : -nanos;
        }
        // Rounded half up without adding first: the largest times a file may hold do not overflow.
        long thousandths = nanos / 1000 + (nanos % 1000 >= 500 ? 1 : 0);
        long fraction = thousandths % 1000;
        b.append(thousandths / 1000).append('.');
        if (fraction < 100) {
            b.append(fraction < 10 ? "00" : "0");
        }
        b.append(fraction);
    }

    /**
     * A field: its control characters shown as escapes ({@link Printable#field}: a line feed kept,
     * which RFC 4180 allows in a quoted field), quoted when it holds a comma, a quote or a line
     * break (quotes doubled). One that a spreadsheet would take for a formula (it begins with
     * {@code = + - @}, a tab or a carriage return) begins with an apostrophe, and is quoted: the
     * spreadsheet shows the text, and runs nothing a recording wrote.
     */
    static String field(String raw) {
        String text = Printable.field(raw);
        if (!text.isEmpty() && "=+-@\t\r".indexOf(text.charAt(0)) >= 0) {
            return "\"'" + text.replace("\"", "\"\"") + '"';
        }
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }
}
