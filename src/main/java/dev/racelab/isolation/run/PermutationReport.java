package dev.racelab.isolation.run;

import dev.racelab.backend.wire.ServerMessage;
import dev.racelab.backend.wire.WireResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each permutation of a run summed up: its steps, which of them waited (and, if the runner was
 * asked, for whom), which failed and with what error. The command line's {@code --json} and the
 * window's permutation grid read it.
 */
public final class PermutationReport implements IsolationListener {

    /**
     * One step as it went.
     *
     * @param waited    it was reported waiting before it completed
     * @param blockedBy the sessions the server said held it up, when the runner asked
     * @param error     the error it ended with (the server's), or null
     * @param lost      libpq's words when the connection ended under it, or null
     * @param results   everything the server answered it, in order (tables, tags, the error)
     */
    public record StepOutcome(String step, String session, boolean waited, List<String> blockedBy,
                              ServerMessage error, String lost, List<WireResult> results) {

        public StepOutcome {
            results = List.copyOf(results);
        }

        public boolean failed() {
            return error != null || lost != null;
        }

        /** The error in one line: {@code 40001 could not serialize access …}, or the lost connection. */
        public String errorText() {
            if (error != null) {
                return (error.sqlState() == null ? "" : error.sqlState() + " ") + error.message();
            }
            return lost == null ? null : lost.lines().findFirst().orElse(lost);
        }
    }

    /** One permutation as it went; {@code complete} is false if the run stopped inside it. */
    public record Outcome(String permutation, List<StepOutcome> steps, List<String> problems, boolean complete) {

        /** The first step that failed, or null if none did. */
        public StepOutcome firstFailure() {
            return steps.stream().filter(StepOutcome::failed).findFirst().orElse(null);
        }

        public boolean failed() {
            return firstFailure() != null;
        }

        /** For {@code --json}. */
        public Map<String, Object> toJson() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("permutation", permutation);
            List<Object> list = new ArrayList<>();
            for (StepOutcome s : steps) {
                Map<String, Object> step = new LinkedHashMap<>();
                step.put("step", s.step());
                step.put("session", s.session());
                step.put("waited", s.waited());
                if (!s.blockedBy().isEmpty()) {
                    step.put("blockedBy", s.blockedBy());
                }
                if (s.error() != null) {
                    Map<String, Object> error = new LinkedHashMap<>();
                    error.put("severity", s.error().severity());
                    error.put("sqlstate", s.error().sqlState());
                    error.put("message", s.error().message());
                    step.put("error", error);
                } else if (s.lost() != null) {
                    step.put("error", Map.of("message", s.lost().strip()));
                }
                list.add(step);
            }
            map.put("steps", list);
            map.put("failed", failed());
            if (!problems.isEmpty()) {
                map.put("problems", problems);
            }
            if (!complete) {
                map.put("complete", false);
            }
            return map;
        }
    }

    private final List<Outcome> done = new ArrayList<>();
    private String current;
    private List<MutableStep> steps = new ArrayList<>();
    private List<String> problems = new ArrayList<>();

    private static final class MutableStep {
        final LaunchedStep launched;
        boolean waited;
        List<String> blockedBy = List.of();
        ServerMessage error;
        String lost;
        final List<WireResult> results = new ArrayList<>();

        MutableStep(LaunchedStep launched) {
            this.launched = launched;
        }

        StepOutcome freeze() {
            return new StepOutcome(launched.name(), launched.session(), waited, blockedBy, error, lost, results);
        }
    }

    /** The permutations finished so far, and the one in progress if the run stopped inside it. */
    public List<Outcome> outcomes() {
        List<Outcome> all = new ArrayList<>(done);
        if (current != null) {
            all.add(new Outcome(current, steps.stream().map(MutableStep::freeze).toList(), List.copyOf(problems),
                    false));
        }
        return all;
    }

    @Override
    public void permutationStarted(String names) {
        current = names;
        steps = new ArrayList<>();
        problems = new ArrayList<>();
    }

    @Override
    public void stepLaunched(LaunchedStep step) {
        steps.add(new MutableStep(step));
    }

    private MutableStep find(LaunchedStep step) {
        return steps.stream().filter(s -> s.launched.position() == step.position()).findFirst()
                .orElseThrow(() -> new IllegalStateException("step " + step.name() + " was never launched"));
    }

    @Override
    public void stepWaiting(LaunchedStep step, List<String> blockedBy) {
        MutableStep s = find(step);
        s.waited = true;
        s.blockedBy = List.copyOf(blockedBy);
    }

    @Override
    public void stepResult(LaunchedStep step, WireResult result) {
        MutableStep s = find(step);
        s.results.add(result);
        if (!result.failed()) {
            return;
        }
        if (s.error == null && s.lost == null) {
            s.error = result.error();
            s.lost = result.error() == null ? result.text() : null;
        }
    }

    @Override
    public void problem(String text) {
        problems.add(text.strip());
    }

    @Override
    public void permutationFinished(String names) {
        done.add(new Outcome(current, steps.stream().map(MutableStep::freeze).toList(), List.copyOf(problems), true));
        current = null;
    }
}
