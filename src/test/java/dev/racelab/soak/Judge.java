package dev.racelab.soak;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Service;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;
import dev.racelab.soak.Report.Result;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What became of one ended run of the soak, by what its child printed, the recording it left and
 * the processes it left: see {@link Soak}'s class comment for what each fault expects.
 */
final class Judge {

    private final Labs labs;

    Judge(Labs labs) {
        this.labs = labs;
    }

    /** The classes and problems of one ended run; see the class comment for what is expected. */
    Report judge(Plan plan, boolean hung, Integer exit, String inflicted, String note, Instant faultWall,
                 List<String> left, List<String> partials,
                 Path recordingFile, Path out, Path err, List<String> command, double underWay,
                 double fault, double printed, double ended, double bound) throws IOException {
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        JsonObject summary = summary(stdout);
        String verdict = summary != null && summary.has("verdict") ? summary.get("verdict").getAsString() : null;
        boolean summaryInterrupted = summary != null && summary.has("interrupted")
                && summary.get("interrupted").getAsBoolean();
        String serverName = plan.faulted() == Service.POSTGRES ? "PostgreSQL" : "Redis";
        boolean named = stderr.lines().anyMatch(l -> l.startsWith("racelab:") && l.contains(serverName));

        Optional<Recording> recording = Optional.empty();
        String recordingProblem = null;
        // A signal before any run leaves no recording: there is nothing to record.
        boolean noRun = plan.fault().signals() && summaryInterrupted && summary.has("runs")
                && summary.get("runs").getAsInt() == 0;
        if (noRun) {
            recordingProblem = Files.exists(recordingFile) ? "a recording though no run ran" : null;
        } else if (!Files.exists(recordingFile)) {
            recordingProblem = "no recording";
        } else {
            try {
                recording = Optional.of(new RecordingReader(labs).read(recordingFile));
            } catch (RecordingException e) {
                recordingProblem = "recording unreadable: " + e.getMessage();
            }
        }

        List<String> problems = new ArrayList<>();
        Result result;
        Fault done = inflicted == null ? Fault.NONE : plan.fault();
        if (hung) {
            result = Result.HUNG;
            problems.add(String.format("still running %.1f s after it started, past its bound; killed", ended)
                    + (summary != null ? " (it had printed its summary, verdict " + verdict + ")"
                    : stderr.lines().anyMatch(l -> l.startsWith("racelab:")) ? " (it had printed an error line)"
                    : " (it had printed no result)"));
        } else {
            result = switch (done) {
                case NONE -> {
                    if (exit != 0) {
                        problems.add("exit " + exit + " with no fault" + (plan.fault() == Fault.NONE ? "" : " inflicted"));
                        yield Result.WRONG_EXIT;
                    }
                    if (verdict == null) {
                        problems.add("exit 0 without a verdict on standard output");
                        yield Result.UNNAMED_CAUSE;
                    }
                    yield plan.fault() == Fault.NONE ? Result.OK : Result.FAULT_TOO_LATE;
                }
                case SIGTERM, START_SIGNAL -> {
                    if (summary == null) {
                        problems.add("signalled (SIG" + plan.signal() + "), exit " + exit + ", and no summary printed");
                        yield Result.UNNAMED_CAUSE;
                    }
                    if (summaryInterrupted) {
                        // The JVM ends with the signal's status once its shutdown (RaceLab's summary) is done.
                        int signalled = 128 + (plan.signal().equals("INT") ? 2 : 15);
                        if (exit != signalled) {
                            problems.add("exit " + exit + " after SIG" + plan.signal() + ", not " + signalled);
                            yield Result.WRONG_EXIT;
                        }
                        yield Result.OK;
                    }
                    yield verdict != null ? Result.FAULT_TOO_LATE : Result.UNNAMED_CAUSE;
                }
                case SERVER_KILL, SERVER_FREEZE, BACKEND_KILL -> {
                    if (exit == 1) {
                        if (named) {
                            yield Result.OK;
                        }
                        problems.add("exit 1 without a line naming " + serverName + " on standard error");
                        yield Result.UNNAMED_CAUSE;
                    }
                    if (exit == 0 && verdict != null && cameAfterWork(recording, faultWall)) {
                        yield Result.FAULT_TOO_LATE;
                    }
                    problems.add("exit " + exit + (verdict == null ? "" : " with verdict " + verdict)
                            + " though the fault came while the workers were at work");
                    yield Result.WRONG_EXIT;
                }
            };
        }

        boolean wantInterrupted = result == Result.OK && done.signals();
        if (recordingProblem != null) {
            problems.add(recordingProblem);
        } else if (recording.isPresent() && recording.get().interrupted() != wantInterrupted && !hung) {
            problems.add(wantInterrupted ? "the recording is not marked interrupted"
                    : "the recording is marked interrupted");
        }
        if (recordingProblem != null || problems.stream().anyMatch(p -> p.contains("marked interrupted"))) {
            result = result.failure() ? result : Result.RECORDING;
        }
        if (!partials.isEmpty()) {
            problems.add("left beside the recording's target: " + String.join(", ", partials));
            result = result.failure() ? result : Result.PARTIAL_FILE;
        }
        if (!left.isEmpty()) {
            problems.add("still running " + Soak.PROCESS_GRACE.toSeconds() + " s after the child ended (killed): "
                    + String.join(", ", left));
            result = result.failure() ? result : Result.PROCESS_LEFT;
        }
        if (result == Result.FAULT_TOO_LATE) {
            note = (note != null ? note : done.signals() ? "the signal came after the run was recorded"
                    : "the fault came after the workers were done") + workTime(recording);
        }
        String outcome = summary == null ? Tables.tail(stdout, 12)
                : verdict + " · " + text(summary, "headline") + " · " + text(summary, "explanation")
                + (summaryInterrupted ? " · interrupted" : "");
        return new Report(plan, result, problems, inflicted, note, exit, underWay, fault, printed, ended, bound, verdict,
                command, outcome, Tables.tail(stderr, 15));
    }

    private static String text(JsonObject json, String field) {
        return json.has(field) && !json.get(field).isJsonNull() ? json.get(field).getAsString() : "";
    }

    /** The JSON summary the child printed, or null. */
    private static JsonObject summary(String stdout) {
        int start = stdout.indexOf('{');
        if (start < 0) {
            return null;
        }
        try {
            JsonElement json = JsonParser.parseString(stdout.substring(start));
            return json.isJsonObject() ? json.getAsJsonObject() : null;
        } catch (RuntimeException notJson) {
            return null;
        }
    }

    /**
     * Whether the fault came after the workers were done: after every worker's lane went DONE, or
     * else after the run began stopping or ended, by the last run's record (an event's wall-clock
     * time is the run's start plus the event's offset). Without a recording, no.
     */
    private static boolean cameAfterWork(Optional<Recording> recording, Instant fault) {
        if (recording.isEmpty() || fault == null) {
            return false;
        }
        return workEnded(recording.get().last()).map(fault::isAfter).orElse(false);
    }

    /** When the run's workers were done, by its record. */
    private static Optional<Instant> workEnded(RunRecord run) {
        Instant start = run.header().startedAt();
        int done = 0;
        long lastDone = 0;
        for (Event event : run.events().snapshot()) {
            if (event.kind() == EventKind.STATE && event.state() == ActorState.DONE) {
                done++;
                lastDone = event.nanos();
            }
            if (done == run.header().spec().workers()) {
                return Optional.of(start.plusNanos(lastDone));
            }
            if (event.kind() == EventKind.RUN_STOPPING || event.kind() == EventKind.RUN_ENDED) {
                return Optional.of(start.plusNanos(event.nanos()));
            }
        }
        return Optional.empty();
    }

    /** How long the run's workers ran, by its record, for notes. */
    private static String workTime(Optional<Recording> recording) {
        if (recording.isEmpty()) {
            return "";
        }
        RunRecord run = recording.get().last();
        for (Event event : run.events().snapshot()) {
            if (event.kind() == EventKind.RUN_STARTED) {
                Instant started = run.header().startedAt().plusNanos(event.nanos());
                return workEnded(run).map(end -> " (its workers ran " + Duration.between(started, end).toMillis()
                        + " ms)").orElse("");
            }
        }
        return "";
    }
}
