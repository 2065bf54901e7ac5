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
import dev.racelab.engine.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads a recording file written in {@link RecordingFormat} back into {@link RunRecord}s, with no
 * server. Anything that is not a whole recording this RaceLab can read — an empty file, a
 * foreign one, one cut short, one with a damaged line, one written by a newer RaceLab, one of a lab
 * this RaceLab lacks — is refused with one line that names the file and what is wrong. Reading
 * never changes the file.
 */
public final class RecordingReader {

    private final Function<String, Lab> labs;

    /** @param labs the lab with an id, or null for an id this RaceLab does not know */
    public RecordingReader(Function<String, Lab> labs) {
        this.labs = labs;
    }

    public Recording read(Path file) throws RecordingException {
        String name = file.toString();
        if (Files.isDirectory(file)) {
            throw new RecordingException(name + " is a folder, not a recording");
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Files.newInputStream(file),
                StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)), 1 << 16)) {
            return new Parse(name, in).recording();
        } catch (NoSuchFileException e) {
            throw new RecordingException(name + " does not exist");
        } catch (CharacterCodingException e) {
            throw new RecordingException(name + " is not a RaceLab recording (it is not text)");
        } catch (IOException e) {
            throw new RecordingException("cannot read " + name + ": " + RecordingWriter.reason(e), e);
        }
    }

    /** One pass over one file, line by line. */
    private final class Parse {

        private final String name;
        private final BufferedReader in;
        private int lineNumber;

        Parse(String name, BufferedReader in) {
            this.name = name;
            this.in = in;
        }

        Recording recording() throws IOException, RecordingException {
            String first = in.readLine();
            lineNumber = 1;
            if (first == null || first.isBlank()) {
                throw new RecordingException(name + " is empty: it holds no recording");
            }
            JsonObject opening = openingOf(first);
            long version = opening.get("version").getAsLong();
            if (version > RecordingFormat.VERSION) {
                throw new RecordingException(name + " was written by a newer RaceLab (recording format version "
                        + version + "; this RaceLab reads version " + RecordingFormat.VERSION + " and older): "
                        + "open it with a newer RaceLab");
            }
            if (version < 1) {
                throw new RecordingException(name + " claims recording format version " + version
                        + ", which never existed");
            }
            List<RunRecord> runs = new ArrayList<>();
            while (true) {
                JsonObject object = object(next());
                String type = string(object, "type");
                if (type.equals("end")) {
                    long declared = number(object, "runs");
                    if (declared != runs.size() || runs.isEmpty()) {
                        throw damaged("its end line counts " + declared + " runs, but it holds " + runs.size());
                    }
                    if (in.readLine() != null) {
                        throw damaged("there is more after its end line");
                    }
                    boolean interrupted = object.has("interrupted") && bool(object, "interrupted");
                    // Both optional: a recording without them holds every run its command asked for.
                    long planned = object.has("planned") ? number(object, "planned") : runs.size();
                    String serverFailure = object.has("serverFailure") ? string(object, "serverFailure") : null;
                    return new Recording(runs, number(object, "elapsedMs"), number(object, "startupMs"), interrupted,
                            (int) Math.min(planned, Integer.MAX_VALUE), serverFailure);
                }
                if (!type.equals("run")) {
                    throw damaged("line " + lineNumber + " should begin a run or end the recording, not '" + type + "'");
                }
                runs.add(run(object, runs.size() + 1));
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

        private RunRecord run(JsonObject head, int index) throws IOException, RecordingException {
            String labId = string(head, "lab");
            Lab lab = labs.apply(labId);
            if (lab == null) {
                throw new RecordingException(name + " is a recording of the lab '" + labId
                        + "', which this RaceLab does not have");
            }
            RunSpec spec;
            try {
                spec = spec(lab, head);
            } catch (IllegalArgumentException e) {
                throw damaged("run " + index + " has settings this lab does not take (" + e.getMessage() + ")");
            }
            Instant startedAt;
            try {
                startedAt = Instant.parse(string(head, "startedAt"));
            } catch (java.time.format.DateTimeParseException e) {
                throw damaged("run " + index + " has no readable start time");
            }
            Map<String, String> backend = strings(head, "backend");
            List<Event> events = new ArrayList<>();
            while (true) {
                String line = next();
                if (line.startsWith("[")) {
                    events.add(event(line, events.size()));
                    continue;
                }
                JsonObject end = object(line);
                if (!"outcome".equals(string(end, "type"))) {
                    throw damaged("run " + index + " has no outcome (line " + lineNumber + ")");
                }
                if (number(end, "events") != events.size()) {
                    throw damaged("run " + index + " should hold " + number(end, "events") + " events, but holds "
                            + events.size());
                }
                return RunRecord.loaded(new RunHeader(labId, spec, startedAt), events, number(end, "droppedEvents"),
                        outcome(end), backend);
            }
        }

        private RunSpec spec(Lab lab, JsonObject head) throws RecordingException {
            RunSpec base = RunSpec.defaults(lab);
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
                    switches);
        }

        private List<String> gateIds(GatePlan plan, Lab lab) {
            List<String> ids = new ArrayList<>();
            for (String part : plan.describe(lab::workerName).split("\\s+")) {
                int eq = part.indexOf('=');
                if (eq > 0) {
                    ids.add(part.substring(0, eq));
                }
            }
            return ids;
        }

        private Event event(String line, int expectedSeq) throws RecordingException {
            try {
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
                int actor = a.get(2).getAsInt();
                if (actor < 0) {
                    throw damaged("line " + lineNumber + " names no actor");
                }
                return new Event(seq, a.get(1).getAsLong(), actor, kind, subject, value);
            } catch (IllegalStateException | IllegalArgumentException | JsonParseException
                     | UnsupportedOperationException e) {
                throw damaged("line " + lineNumber + " is not an event this RaceLab knows");
            }
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
                    metrics.put(m.getKey(), RecordingFormat.number(m.getValue().getAsBigDecimal()));
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
        private String next() throws IOException, RecordingException {
            String line = in.readLine();
            lineNumber++;
            if (line == null) {
                throw new RecordingException(name + " ends before it is complete (cut short after line "
                        + (lineNumber - 1) + "): it was not written to the end");
            }
            return line;
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
            } catch (ArithmeticException ex) {
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
