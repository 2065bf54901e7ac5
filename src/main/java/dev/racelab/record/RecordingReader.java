package dev.racelab.record;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.lab.LabFinder;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Schedule;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;

import dev.racelab.engine.Printable;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a recording file written in {@link RecordingFormat}, with no server: whole into
 * {@link RunRecord}s ({@link #read(Path)}, for the window), or handed over line by line to a
 * {@link RecordingSink} ({@link #read(Path, RecordingSink)}), which keeps what it needs, so a
 * summary or an export of a recording of any size takes the memory of one line and the sink's.
 * Anything that is not a whole recording this RaceLab can read — an empty file, a foreign one, one
 * cut short, one with a damaged line or a line longer than {@link LineReader#MAX_LINE}, an event
 * on a lane no {@code ACTOR} line announced, one written by a newer RaceLab, one of a lab this
 * RaceLab lacks — is refused with one line that names the file and what is wrong, quoting at most
 * a short excerpt of the file's text. Reading never changes the file.
 */
public final class RecordingReader {

    /** How much of a file's text a refusal quotes. */
    private static final int QUOTED = 60;

    private final LabFinder labs;

    /** @param labs the lab each run names, or carries as text */
    public RecordingReader(LabFinder labs) {
        this.labs = labs;
    }

    /** The whole recording, every event of every run in memory. */
    public Recording read(Path file) throws RecordingException {
        return readInto(file, new RecordingCollector()).recording();
    }

    /**
     * Hands {@code file} to {@code sink}, which keeps what it needs and writes nothing (a summary,
     * a picture's timeline), and returns the sink.
     */
    public <S extends RecordingSink> S readInto(Path file, S sink) throws RecordingException {
        try {
            read(file, sink);
        } catch (IOException e) {
            throw new UncheckedIOException("a sink that writes nothing failed to write", e);
        }
        return sink;
    }

    /**
     * Hands {@code file} to {@code sink} in one pass, checking it as it goes.
     *
     * @throws RecordingException the file is not a whole recording this RaceLab reads, or cannot be read
     * @throws IOException        the sink failed (writing an export, say); the file was fine so far
     */
    public void read(Path file, RecordingSink sink) throws RecordingException, IOException {
        String name = file.toString();
        if (Files.isDirectory(file)) {
            throw new RecordingException(name + " is a folder, not a recording");
        }
        InputStreamReader text;
        try {
            text = new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT));
        } catch (NoSuchFileException e) {
            throw new RecordingException(name + " does not exist");
        } catch (IOException e) {
            throw new RecordingException("cannot read " + name + ": " + RecordingWriter.reason(e), e);
        }
        try (text) {
            new Parse(name, new LineReader(text), new FromOrigin(sink)).recording();
        }
    }

    /** One pass over one file, line by line. */
    private final class Parse {

        private final String name;
        private final LineReader in;
        private RecordingSink sink;
        private int lineNumber;
        /** The labs this file carried as text, by id: its later runs of one name it only. */
        private final Map<String, Lab> carried = new HashMap<>();
        /** Reads the event lines RaceLab writes without a JSON tree. */
        private final EventLine plain = new EventLine();

        Parse(String name, LineReader in, RecordingSink sink) {
            this.name = name;
            this.in = in;
            this.sink = sink;
        }

        void recording() throws IOException, RecordingException {
            String first = line();
            if (first == null || first.isBlank()) {
                throw new RecordingException(name + " is empty: it holds no recording");
            }
            JsonObject opening = openingOf(first);
            long version = number(opening, "version");
            if (version > RecordingFormat.VERSION) {
                throw new RecordingException(name + " was written by a newer RaceLab (recording format version "
                        + version + "; this RaceLab reads version " + RecordingFormat.VERSION + " and older): "
                        + "open it with a newer RaceLab");
            }
            if (version < 1) {
                throw new RecordingException(name + " claims recording format version " + version
                        + ", which never existed");
            }
            if (version < 2) {
                sink = new OldNotes(sink);
            }
            int runs = 0;
            while (true) {
                JsonObject object = object(next());
                String type = string(object, "type");
                if (type.equals("end")) {
                    long declared = number(object, "runs");
                    if (declared != runs || runs == 0) {
                        throw damaged("its end line counts " + declared + " runs, but it holds " + runs);
                    }
                    if (line() != null) {
                        throw damaged("there is more after its end line");
                    }
                    boolean interrupted = object.has("interrupted") && bool(object, "interrupted");
                    // Both optional: a recording without them holds every run its command asked for.
                    long planned = object.has("planned") ? number(object, "planned") : runs;
                    String serverFailure = object.has("serverFailure") ? string(object, "serverFailure") : null;
                    sink.end(new RecordingEnd(runs, number(object, "elapsedMs"), number(object, "startupMs"),
                            interrupted, (int) Math.max(runs, Math.min(planned, Integer.MAX_VALUE)), serverFailure));
                    return;
                }
                if (type.equals("run") && runs == RecordingFormat.MAX_RUNS) {
                    throw damaged("line " + lineNumber + " begins run " + (runs + 1) + ", but a recording holds at most "
                            + RecordingFormat.MAX_RUNS);
                }
                if (!type.equals("run")) {
                    throw damaged("line " + lineNumber + " should begin a run or end the recording, not '"
                            + Printable.excerpt(type, QUOTED) + "'");
                }
                run(object, ++runs);
            }
        }

        private JsonObject openingOf(String line) throws RecordingException {
            JsonObject opening;
            try {
                JsonElement element = JsonParser.parseString(line);
                opening = element.isJsonObject() ? element.getAsJsonObject() : null;
            } catch (JsonParseException e) {
                opening = null;
            }
            if (opening == null || !opening.has("format") || !opening.get("format").isJsonPrimitive()
                    || !RecordingFormat.MAGIC.equals(opening.get("format").getAsString())) {
                throw new RecordingException(name + " is not a RaceLab recording");
            }
            if (!opening.has("version") || !opening.get("version").isJsonPrimitive()
                    || !opening.get("version").getAsJsonPrimitive().isNumber()) {
                throw damaged("its first line has no format version");
            }
            return opening;
        }

        private void run(JsonObject head, int index) throws IOException, RecordingException {
            String labId = string(head, "lab");
            Lab lab = carried.containsKey(labId) ? carried.get(labId) : labs.named(labId);
            try {
                // A lab written as a file comes with its text, read and checked as the file was.
                lab = head.has("source") ? labs.carried(labId, string(head, "source")) : lab;
            } catch (IllegalArgumentException e) {
                throw damaged("run " + index + " carries a lab '" + Printable.excerpt(labId, QUOTED)
                        + "' that cannot be read (" + Printable.excerpt(String.valueOf(e.getMessage()), 2 * QUOTED) + ")");
            }
            carried.put(labId, lab);
            if (lab == null) {
                throw new RecordingException(name + " is a recording of the lab '" + Printable.excerpt(labId, QUOTED)
                        + "', which this RaceLab does not have");
            }
            RunSpec spec;
            try {
                spec = spec(lab, head);
            } catch (IllegalArgumentException e) {
                throw damaged("run " + index + " has settings this lab does not take ("
                        + Printable.excerpt(String.valueOf(e.getMessage()), 2 * QUOTED) + ")");
            }
            Instant startedAt;
            try {
                startedAt = Instant.parse(string(head, "startedAt"));
            } catch (java.time.format.DateTimeParseException e) {
                throw damaged("run " + index + " has no readable start time");
            }
            sink.lab(lab);
            sink.run(index, new RunHeader(labId, spec, startedAt), strings(head, "backend"));
            BitSet announced = new BitSet();
            long events = 0;
            while (true) {
                String line = next();
                if (line.startsWith("[")) {
                    sink.event(event(line, events++, announced));
                    continue;
                }
                JsonObject end = object(line);
                if (!"outcome".equals(string(end, "type"))) {
                    throw damaged("run " + index + " has no outcome (line " + lineNumber + ")");
                }
                if (number(end, "events") != events) {
                    throw damaged("run " + index + " should hold " + number(end, "events") + " events, but holds "
                            + events);
                }
                sink.outcome(outcome(end), number(end, "droppedEvents"));
                return;
            }
        }

        private RunSpec spec(Lab lab, JsonObject head) throws RecordingException {
            RunSpec base = lab.defaults();
            String strategy = string(head, "strategy");
            if (lab.strategy(strategy).isEmpty()) {
                throw new IllegalArgumentException("no strategy '" + strategy + "'");
            }
            int workers = (int) number(head, "workers");
            GatePlan gates = GatePlan.parse(string(head, "gates"), worker -> lab.workerIndex(worker, workers));
            for (String gate : gateIds(gates, lab)) {
                if (lab.gate(gate).isEmpty()) {
                    throw new IllegalArgumentException("no gate '" + gate + "'");
                }
            }
            SwitchValues switches = SwitchValues.DEFAULTS;
            for (Map.Entry<String, String> entry : strings(head, "switches").entrySet()) {
                Switch<?> sw = lab.profile().switchNamed(entry.getKey())
                        .orElseThrow(() -> new IllegalArgumentException("no switch '" + entry.getKey() + "'"));
                switches = switches.parse(sw, entry.getValue());
            }
            return new RunSpec(strategy, workers, (int) number(head, "ops"), gates, number(head, "seed"),
                    Duration.ofMillis(number(head, "timeoutMs")), bool(head, "stepMode"), bool(head, "observe"),
                    switches, head.has("schedule")
                    ? Schedule.parse(string(head, "schedule"), name -> lab.workerIndex(name, workers)) : Schedule.NONE);
        }

        private List<String> gateIds(GatePlan plan, Lab lab) {
            return java.util.Arrays.stream(plan.describe(lab::workerName).split("\\s+")).filter(p -> p.indexOf('=') > 0)
                    .map(p -> p.substring(0, p.indexOf('='))).toList();
        }

        /**
         * The event {@link #plain} read, or null where the JSON parser is to read the line instead
         * (a value or subject of another type than RaceLab writes): it converts as it always has.
         */
        private Event plainEvent(long expectedSeq) throws RecordingException {
            EventLine e = plain;
            if (e.seq != expectedSeq) {
                throw damaged("line " + lineNumber + " is event " + e.seq + " where event " + expectedSeq + " belongs");
            }
            EventKind kind = EventKind.valueOf(e.kind);
            boolean named = kind == EventKind.STATE || kind == EventKind.ACTOR;
            if (named != (e.valueName != null)) {
                return null;
            }
            return checked(e.seq, expectedSeq, e.nanos, (int) e.actor, kind, e.subject, switch (kind) {
                case STATE -> ActorState.valueOf(e.valueName).ordinal();
                case ACTOR -> Actor.Kind.valueOf(e.valueName).ordinal();
                default -> e.value;
            });
        }

        /** An event line read as JSON: any line {@link EventLine} does not read. */
        private Event jsonEvent(String line, long expectedSeq) throws RecordingException {
            JsonArray a = JsonParser.parseString(line).getAsJsonArray();
            if (a.size() != 6) {
                throw damaged("line " + lineNumber + " is not an event");
            }
            long seq = a.get(0).getAsLong();
            if (seq != expectedSeq) {
                throw damaged("line " + lineNumber + " is event " + seq + " where event " + expectedSeq + " belongs");
            }
            EventKind kind = EventKind.valueOf(a.get(3).getAsString());
            long value = switch (kind) {
                case STATE -> ActorState.valueOf(a.get(4).getAsString()).ordinal();
                case ACTOR -> Actor.Kind.valueOf(a.get(4).getAsString()).ordinal();
                default -> a.get(4).getAsLong();
            };
            String subject = a.get(5).isJsonNull() ? null : a.get(5).getAsString();
            return checked(seq, expectedSeq, a.get(1).getAsLong(), a.get(2).getAsInt(), kind, subject, value);
        }

        private Event checked(long seq, long expectedSeq, long nanos, int actor, EventKind kind, String subject,
                              long value) throws RecordingException {
            if (seq != expectedSeq) {
                throw damaged("line " + lineNumber + " is event " + seq + " where event " + expectedSeq + " belongs");
            }
            if (actor < 0) {
                throw damaged("line " + lineNumber + " names no actor");
            }
            return new Event(seq, nanos, actor, kind, subject, value);
        }

        /**
         * Event {@code expectedSeq}, on a lane an {@code ACTOR} line announced before it ({@code
         * announced}, which an {@code ACTOR} line adds to, once), numbered below {@link
         * RecordingFormat#MAX_LANES}; a server's report on a worker names an announced lane, an
         * arrow an earlier event.
         */
        private Event event(String line, long expectedSeq, BitSet announced) throws RecordingException {
            Event event;
            try {
                event = plain.read(line) ? plainEvent(expectedSeq) : null;
                if (event == null) {
                    event = jsonEvent(line, expectedSeq);
                }
            } catch (IllegalStateException | IllegalArgumentException | JsonParseException
                     | UnsupportedOperationException e) {
                throw damaged("line " + lineNumber + " is not an event this RaceLab knows");
            }
            if (event.actor() >= RecordingFormat.MAX_LANES) {
                throw damaged("line " + lineNumber + " is on lane " + event.actor() + ", but a run has at most "
                        + RecordingFormat.MAX_LANES + " lanes (0 to " + (RecordingFormat.MAX_LANES - 1) + ")");
            }
            if (event.kind() == EventKind.ACTOR) {
                if (announced.get(event.actor())) {
                    throw damaged("line " + lineNumber + " announces lane " + event.actor() + " again");
                }
                if (event.subject() == null) {
                    throw damaged("line " + lineNumber + " announces lane " + event.actor() + " without a name");
                }
                announced.set(event.actor());
            } else if (!announced.get(event.actor())) {
                throw damaged("line " + lineNumber + " is an event on lane " + event.actor()
                        + ", which no ACTOR line announced before it");
            }
            switch (event.kind()) {
                case SERVER_HOLDS, SERVER_WAITS -> {
                    if (event.value() < 0 || event.value() >= RecordingFormat.MAX_LANES
                            || !announced.get((int) event.value())) {
                        throw damaged("line " + lineNumber + " reports on lane " + event.value()
                                + ", which no ACTOR line announced before it");
                    }
                }
                case WOKEN, OVERWROTE -> {
                    // -1: no earlier event to point to (a wake-up whose waker is not known), no arrow.
                    if (event.value() < -1 || event.value() >= event.seq()) {
                        throw damaged("line " + lineNumber + " points back to event " + event.value()
                                + ", which is not an earlier one");
                    }
                }
                default -> { }
            }
            return event;
        }

        private Outcome outcome(JsonObject o) throws RecordingException {
            try {
                Verdict verdict = Verdict.valueOf(string(o, "verdict"));
                Map<String, Long> violations = new LinkedHashMap<>();
                for (Map.Entry<String, JsonElement> v : o.getAsJsonObject("violations").entrySet()) {
                    violations.put(v.getKey(), v.getValue().getAsLong());
                }
                Map<String, Number> metrics = new LinkedHashMap<>();
                for (Map.Entry<String, JsonElement> m : o.getAsJsonObject("metrics").entrySet()) {
                    metrics.put(m.getKey(), RecordingFormat.number(m.getValue().getAsString()));
                }
                List<Long> places = new ArrayList<>();
                for (JsonElement place : o.getAsJsonArray("places")) {
                    places.add(place.getAsLong());
                }
                return new Outcome(verdict, string(o, "headline"), string(o, "explanation"), violations, metrics,
                        places);
            } catch (IllegalStateException | IllegalArgumentException | NullPointerException
                     | UnsupportedOperationException e) {
                throw damaged("the outcome on line " + lineNumber + " cannot be read");
            }
        }

        /** The next line; the file ending here means it was cut short. */
        private String next() throws RecordingException {
            String line = line();
            if (line == null) {
                throw new RecordingException(name + " ends before it is complete (cut short after line "
                        + (lineNumber - 1) + "): it was not written to the end");
            }
            return line;
        }

        /** The next line, or null at the end of the file; what goes wrong reading it is the file's. */
        private String line() throws RecordingException {
            lineNumber++;
            try {
                return in.next();
            } catch (LineReader.TooLong e) {
                String quoted = " (it begins '" + Printable.excerpt(e.start(), QUOTED) + "')";
                if (lineNumber == 1) {
                    throw new RecordingException(name + " is not a RaceLab recording: its first line is longer than "
                            + (LineReader.MAX_LINE >> 20) + " MiB" + quoted);
                }
                throw damaged("line " + lineNumber + " is longer than " + (LineReader.MAX_LINE >> 20)
                        + " MiB, which no recording's line is" + quoted);
            } catch (CharacterCodingException e) {
                throw new RecordingException(name + " is not a RaceLab recording (it is not text)");
            } catch (IOException e) {
                throw new RecordingException("cannot read " + name + ": " + RecordingWriter.reason(e), e);
            }
        }

        private JsonObject object(String line) throws RecordingException {
            try {
                JsonElement element = JsonParser.parseString(line);
                if (element.isJsonObject()) {
                    return element.getAsJsonObject();
                }
            } catch (JsonParseException e) {
                // Reported below.
            }
            throw damaged("line " + lineNumber + " cannot be read");
        }

        private String string(JsonObject o, String key) throws RecordingException {
            JsonElement e = o.get(key);
            if (e == null || !e.isJsonPrimitive()) {
                throw damaged("line " + lineNumber + " lacks '" + key + "'");
            }
            return e.getAsString();
        }

        private long number(JsonObject o, String key) throws RecordingException {
            JsonElement e = o.get(key);
            if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
                throw damaged("line " + lineNumber + " lacks the number '" + key + "'");
            }
            try {
                return e.getAsBigDecimal().longValueExact();
            } catch (ArithmeticException | NumberFormatException ex) {
                // NumberFormatException: a number past what the parser takes (an exponent above 10,000).
                throw damaged("line " + lineNumber + ": '" + key + "' is not a whole number");
            }
        }

        private boolean bool(JsonObject o, String key) throws RecordingException {
            JsonElement e = o.get(key);
            if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
                throw damaged("line " + lineNumber + " lacks '" + key + "'");
            }
            return e.getAsBoolean();
        }

        private Map<String, String> strings(JsonObject o, String key) throws RecordingException {
            JsonElement e = o.get(key);
            if (e == null || !e.isJsonObject()) {
                throw damaged("line " + lineNumber + " lacks '" + key + "'");
            }
            Map<String, String> map = new LinkedHashMap<>();
            for (Map.Entry<String, JsonElement> entry : e.getAsJsonObject().entrySet()) {
                if (!entry.getValue().isJsonPrimitive()) {
                    throw damaged("line " + lineNumber + ": '" + key + "' holds something other than text");
                }
                map.put(entry.getKey(), entry.getValue().getAsString());
            }
            return map;
        }

        private RecordingException damaged(String what) {
            return new RecordingException(name + " is damaged: " + what);
        }
    }
}
