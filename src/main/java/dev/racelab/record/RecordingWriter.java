package dev.racelab.record;

import com.google.gson.stream.JsonWriter;
import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.EventLog;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.TimeOrigin;
import dev.racelab.files.OutputFile;
import dev.racelab.files.PartialFile;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes runs to a recording file in {@link RecordingFormat}: into a {@link PartialFile} beside
 * the target, made when the first run is written, which {@link #commit} makes complete (the end
 * line, flushed to the disk) and moves into place in one step. A recording is therefore only ever
 * there whole: a writer closed without a commit, or failing half-way, leaves the target as it was
 * and removes its temporary file; one that never wrote a run made none.
 *
 * <p>Used by one thread.
 */
public final class RecordingWriter implements AutoCloseable {

    private final OutputFile target;
    private PartialFile partial;
    private Writer out;
    private int runs;
    private boolean done;
    /** The text last written for each lab that carries its own ({@link Lab#source()}). */
    private final Map<String, String> sources = new HashMap<>();

    private RecordingWriter(OutputFile target) {
        this.target = target;
    }

    /**
     * Starts a recording that will land at {@code target}, which {@link OutputFile#check} found
     * writable before any run; nothing is written until the first run is.
     */
    public static RecordingWriter create(OutputFile target) {
        return new RecordingWriter(target);
    }

    /** Starts a recording that will land at {@code target}, a new file: refused now if it cannot be. */
    public static RecordingWriter create(Path target) throws RecordingException {
        try {
            return create(OutputFile.check(target, false));
        } catch (OutputFile.Failed e) {
            throw new RecordingException("cannot record to " + target + ": " + e.reason(), e);
        }
    }

    /** Makes the partial file, with the opening line, for the first run. */
    private void out() throws RecordingException, IOException {
        if (out == null) {
            try {
                partial = target.start();
            } catch (OutputFile.Failed e) {
                throw new RecordingException("cannot record to " + target.named() + ": " + e.reason(), e);
            }
            out = new BufferedWriter(new OutputStreamWriter(partial.stream(), StandardCharsets.UTF_8), 1 << 16);
            line(opening());
        }
    }

    private String opening() throws IOException {
        return json(w -> {
            w.beginObject();
            w.name("format").value(RecordingFormat.MAGIC);
            w.name("version").value(RecordingFormat.VERSION);
            w.endObject();
        });
    }

    /** Appends one finished run: its header, every event, its outcome. */
    public void write(Lab lab, RunRecord record) throws RecordingException {
        if (!record.ended()) {
            throw new IllegalArgumentException("only a run that has ended can be recorded");
        }
        try {
            out();
            runs++;
            line(header(lab, record));
            EventLog events = record.events();
            long size = events.size();
            long origin = TimeOrigin.of(events);
            StringWriter buffer = new StringWriter(128);
            for (long seq = 0; seq < size; seq++) {
                buffer.getBuffer().setLength(0);
                event(buffer, events.get(seq), origin);
                out.write(buffer.toString());
                out.write('\n');
            }
            line(outcome(record.outcome(), size, events.dropped()));
        } catch (IOException e) {
            throw new RecordingException("cannot write " + target.named() + ": " + reason(e), e);
        }
    }

    private String header(Lab lab, RunRecord record) throws IOException {
        RunHeader header = record.header();
        RunSpec spec = header.spec();
        return json(w -> {
            w.beginObject();
            w.name("type").value("run");
            w.name("run").value(runs);
            w.name("lab").value(header.lab());
            // A lab written as a file travels with its first run here (and again if it changed).
            String source = lab.source().orElse(null);
            if (source != null && !source.equals(sources.put(header.lab(), source))) {
                w.name("source").value(source);
            }
            w.name("strategy").value(spec.strategy());
            w.name("workers").value(spec.workers());
            w.name("ops").value(spec.ops());
            w.name("seed").value(spec.seed());
            w.name("timeoutMs").value(spec.timeout().toMillis());
            w.name("stepMode").value(spec.stepMode());
            w.name("observe").value(spec.observe());
            w.name("gates").value(spec.gates().describe(lab::workerName));
            w.name("switches");
            strings(w, spec.switches().describe(lab.switches()));
            if (!spec.schedule().isEmpty()) {
                w.name("schedule").value(spec.schedule().describe(lab::workerName));
            }
            w.name("startedAt").value(header.startedAt().toString());
            w.name("backend");
            strings(w, record.backend());
            w.endObject();
        });
    }

    /** {@code [seq, t, actor, "KIND", value, subject]}; states and actor kinds by name. */
    private static void event(Writer buffer, Event e, long origin) throws IOException {
        JsonWriter w = new JsonWriter(buffer);
        w.beginArray();
        w.value(e.seq());
        w.value(e.nanos() - origin);
        w.value(e.actor());
        w.value(e.kind().name());
        if (e.kind() == EventKind.STATE) {
            w.value(ActorState.byOrdinal(e.value()).name());
        } else if (e.kind() == EventKind.ACTOR) {
            w.value(Actor.Kind.values()[(int) e.value()].name());
        } else {
            w.value(e.value());
        }
        if (e.subject() == null) {
            w.nullValue();
        } else {
            w.value(e.subject());
        }
        w.endArray();
        w.flush();
    }

    private static String outcome(Outcome outcome, long events, long dropped) throws IOException {
        return json(w -> {
            w.beginObject();
            w.name("type").value("outcome");
            w.name("verdict").value(outcome.verdict().name());
            w.name("headline").value(outcome.headline());
            w.name("explanation").value(outcome.explanation());
            w.name("violations").beginObject();
            for (Map.Entry<String, Long> v : outcome.violations().entrySet()) {
                w.name(v.getKey()).value(v.getValue());
            }
            w.endObject();
            w.name("metrics").beginObject();
            for (Map.Entry<String, Number> m : outcome.metrics().entrySet()) {
                w.name(m.getKey()).value(m.getValue());
            }
            w.endObject();
            w.name("places").beginArray();
            for (long place : outcome.places()) {
                w.value(place);
            }
            w.endArray();
            w.name("events").value(events);
            w.name("droppedEvents").value(dropped);
            w.endObject();
        });
    }

    /**
     * Ends the recording: the end line, everything flushed to the disk, and the file moved into
     * place in one step (replacing a file there only if the user asked, {@link OutputFile}).
     *
     * @param interrupted whether a signal cut the runs short: the last run was stopped, and the
     *                    recording is complete up to there
     */
    public void commit(long elapsedMs, long startupMs, boolean interrupted) throws RecordingException {
        commit(elapsedMs, startupMs, interrupted, runs, null);
    }

    /**
     * Ends the recording of a command that asked for {@code planned} runs; {@code serverFailure},
     * if not null, names the server whose failure ended it early (in words, never credentials).
     */
    public void commit(long elapsedMs, long startupMs, boolean interrupted, int planned, String serverFailure)
            throws RecordingException {
        if (runs == 0) {
            throw new IllegalStateException("a recording holds at least one run");
        }
        try {
            line(json(w -> {
                w.beginObject();
                w.name("type").value("end");
                w.name("runs").value(runs);
                w.name("elapsedMs").value(elapsedMs);
                w.name("startupMs").value(startupMs);
                w.name("interrupted").value(interrupted);
                w.name("planned").value(Math.max(planned, runs));
                if (serverFailure != null) {
                    w.name("serverFailure").value(serverFailure);
                }
                w.endObject();
            }));
            out.flush();
            partial.commit();
            done = true;
        } catch (IOException e) {
            throw new RecordingException("cannot write " + target.named() + ": " + reason(e), e);
        } catch (OutputFile.Failed e) {
            throw new RecordingException(e.getMessage(), e);
        } finally {
            if (!done) {
                close();
            }
        }
    }

    /** The number of runs written so far. */
    public int runs() {
        return runs;
    }

    /** Where the recording lands on {@link #commit}: the file a link named leads to, if it did. */
    public Path target() {
        return target.place();
    }

    /** Without a commit: drops the temporary file; the target stays as it was. */
    @Override
    public void close() {
        if (done) {
            return;
        }
        done = true;
        if (partial != null) {
            partial.close();
        }
    }

    private void line(String text) throws IOException {
        out.write(text);
        out.write('\n');
    }

    private static void strings(JsonWriter w, Map<String, String> map) throws IOException {
        w.beginObject();
        for (Map.Entry<String, String> entry : map.entrySet()) {
            w.name(entry.getKey()).value(entry.getValue());
        }
        w.endObject();
    }

    private interface Body {
        void write(JsonWriter w) throws IOException;
    }

    private static String json(Body body) throws IOException {
        StringWriter text = new StringWriter();
        JsonWriter w = new JsonWriter(text);
        w.setHtmlSafe(false);
        body.write(w);
        w.flush();
        return text.toString();
    }

    /**
     * Why {@code e} happened, without the file it names: that is the hidden temporary file, and the
     * user knows only the target, which the message names already.
     */
    static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException fs) {
            return fs.getReason() == null ? e.getClass().getSimpleName() : fs.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
