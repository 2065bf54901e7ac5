package dev.racelab.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a run adds to its outcome at the end: its own figures, the places of its violations, or why it is stuck. */
final class RunResults {

    /** At most this many places of violations: a navigator, not an index. */
    private static final int MAX_PLACES = 10_000;

    private RunResults() {
    }

    /** The run's own figures: operations done, their rate over the workers' phase, its length, events dropped. */
    static Map<String, Number> metrics(long opsCompleted, long startNanos, long endNanos, Recorder recorder) {
        Map<String, Number> metrics = new LinkedHashMap<>();
        long elapsed = startNanos == 0 ? 0 : endNanos - startNanos;
        metrics.put("opsCompleted", opsCompleted);
        metrics.put("opsPerSec", elapsed <= 0 ? 0 : Math.round(opsCompleted * 1e9 / elapsed));
        metrics.put("runMs", elapsed / 1_000_000);
        metrics.put("droppedEvents", recorder.dropped());
        return metrics;
    }

    /** Points the outcome at every violation event, unless the oracle chose the places itself. */
    static Outcome withPlaces(Outcome judged, Recorder recorder) {
        if (!judged.places().isEmpty()) {
            return judged;
        }
        List<Long> places = new ArrayList<>();
        recorder.drain(0, Integer.MAX_VALUE, event -> {
            if (event.kind() == EventKind.VIOLATION && places.size() < MAX_PLACES) {
                places.add(event.seq());
            }
        });
        return new Outcome(judged.verdict(), judged.headline(), judged.explanation(), judged.violations(),
                judged.metrics(), places);
    }

    /** A run whose workers got nowhere for the timeout, and the lab could not say why: who never finished. */
    static Outcome stuck(List<WorkerHandle> workers, RunSpec spec, boolean atRest) {
        List<String> unfinished = new ArrayList<>();
        for (WorkerHandle worker : workers) {
            if (worker.opsDone() < spec.ops()) {
                unfinished.add(worker.name());
            }
        }
        return new Outcome(Verdict.STUCK, atRest ? "every worker left waits for a message nobody is left to send"
                : "no progress for " + spec.timeout().toSeconds() + " s",
                "These workers never finished: " + String.join(", ", unfinished) + ".",
                Map.of("stuck workers", (long) unfinished.size()), Map.of(), List.of());
    }

    /** What ended a run, as its lab explains it; the failure's own message where it cannot. */
    static String explain(Scenario scenario, Throwable failure) {
        if (scenario == null) {
            return RunResults.message(failure);
        }
        try {
            return scenario.explain(failure);
        } catch (RuntimeException e) {
            return RunResults.message(failure);
        }
    }

    /** A failure in a few words: its message, or its class's name when it has none. */
    static String message(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
