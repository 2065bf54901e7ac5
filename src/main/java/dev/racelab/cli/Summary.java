package dev.racelab.cli;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Printable;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Sweep;
import dev.racelab.engine.Verdict;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The result of {@code racelab run}, as text or as the contract's JSON object, summed up from the
 * runs' records alone, so {@code racelab replay} of a recording prints exactly what the run printed.
 * With several runs, {@code violations} sum over the runs and {@code metrics} are those of the
 * last run; {@code runs} counts the runs that ran, {@code plannedRuns} those asked for (more when
 * a signal or a failed server ended the batch early), and {@code serverFailure}, when there is one,
 * names the server that failed and ended the command. As text, a batch's lines give its totals
 * ("in all") and the lines under "last run:" that run's own figures. A command that ran no run (a
 * server failed to start, a signal came first) still has a summary: its settings, and the verdict
 * ERROR with the server's sentence, or no verdict and {@code interrupted}.
 */
final class Summary {

    /** How many violation names a summary keeps, and how long each may be (see countViolation). */
    private static final int MOST_NAMES = 64;
    private static final int LONGEST_NAME = 200;
    private static final String OTHER_NAMES = "(other violations)";

    private Lab lab;
    private final Map<Verdict, Integer> verdicts = new EnumMap<>(Verdict.class);
    private final Map<String, Long> violations = new TreeMap<>();
    private RunSpec spec;
    private Outcome lastOutcome;
    private Map<String, String> lastBackend = Map.of();
    private long lastEvents;
    private int runs;
    private long events;
    private long elapsedMs;
    private long startupMs;
    private boolean interrupted;
    private int planned;
    private String serverFailure;
    private Sweep sweep;
    private final List<Point> points = new ArrayList<>();

    Summary(Lab lab) {
        this.lab = lab;
    }

    /** Names the runs by {@code named}'s words (a replay's summary: its last run's lab, as its run did). */
    void lab(Lab named) {
        this.lab = named;
    }

    /**
     * One delay of a sweep: the verdicts of the runs made with it. A run "failed" when its
     * verdict is the lab's failure (RACE, DEADLOCK or STUCK), not SAFE and not an ERROR.
     */
    static final class Point {
        private final long delay;
        private final Map<Verdict, Integer> verdicts = new EnumMap<>(Verdict.class);
        private int runs;

        private Point(long delay) {
            this.delay = delay;
        }

        void add(Verdict verdict) {
            verdicts.merge(verdict, 1, Integer::sum);
            runs++;
        }

        /** How many runs were made with this delay so far. */
        int runs() {
            return runs;
        }

        int failed() {
            return verdicts.entrySet().stream().filter(e -> e.getKey() != Verdict.SAFE && e.getKey() != Verdict.ERROR)
                    .mapToInt(Map.Entry::getValue).sum();
        }

        /** {@code after-read=5 ms: 20 runs, 19 failed (95%): RACE ×19, SAFE ×1}. */
        String line(Sweep sweep) {
            return String.format("%s=%d ms: %d run%s, %d failed (%d%%): %s", sweep.gate(), delay, runs,
                    runs == 1 ? "" : "s", failed(), runs == 0 ? 0 : Math.round(100.0 * failed() / runs),
                    verdicts.entrySet().stream().map(e -> e.getKey() + " ×" + e.getValue())
                            .collect(Collectors.joining(", ")));
        }

        Map<String, Object> toJson() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("delay", delay);
            json.put("runs", runs);
            Map<String, Integer> counts = new LinkedHashMap<>();
            verdicts.forEach((v, n) -> counts.put(v.name(), n));
            json.put("verdicts", counts);
            json.put("failed", failed());
            return json;
        }
    }

    /** Starts counting the runs made with the sweep's next delay. */
    Point point(long delay) {
        Point point = new Point(delay);
        points.add(point);
        return point;
    }

    /** The sweep the runs made, if they made one. */
    void sweep(Sweep swept) {
        this.sweep = swept;
    }

    /** The settings the runs are made with, for a summary of a command that ran none. */
    void planned(RunSpec runSpec) {
        if (spec == null) {
            spec = runSpec;
        }
    }

    /** Counts one finished run in. */
    void add(RunRecord record) {
        add(record.header().spec(), record.outcome(), record.events().size(), record.backend());
    }

    /**
     * Counts in a finished run, from what its record says of it: its settings, its outcome, how
     * many events it has and what served it (a recording read as it goes keeps no more).
     */
    void add(RunSpec runSpec, Outcome outcome, long eventCount, Map<String, String> backend) {
        if (spec == null) {
            spec = runSpec;
        }
        verdicts.merge(outcome.verdict(), 1, Integer::sum);
        outcome.violations().forEach(this::countViolation);
        events += eventCount;
        lastOutcome = outcome;
        lastBackend = backend;
        lastEvents = eventCount;
        runs++;
    }

    /**
     * Counts a violation in under its name, cut to {@value #LONGEST_NAME} characters; past {@value
     * #MOST_NAMES} names (a crafted recording may hold 10,000 runs of new ones) under one for the rest.
     */
    private void countViolation(String name, long count) {
        String shown = name.length() <= LONGEST_NAME ? name : name.substring(0, LONGEST_NAME) + "…";
        if (violations.size() >= MOST_NAMES && !violations.containsKey(shown)) {
            shown = OTHER_NAMES;
        }
        violations.merge(shown, count, Long::sum);
    }

    /** How long the runs took together and the servers took to start; whether a signal cut the command short. */
    void times(long elapsed, long startup, boolean signalled) {
        this.elapsedMs = elapsed;
        this.startupMs = startup;
        this.interrupted = signalled;
    }

    /**
     * How many runs the command asked for, and the server that failed and ended it early, in
     * words (null if none did).
     */
    void batch(int plannedRuns, String failedServer) {
        this.planned = plannedRuns;
        this.serverFailure = failedServer;
    }

    int runs() {
        return runs;
    }

    /** One verdict if every run agreed, else the worst. */
    Verdict verdict() {
        return verdicts.size() == 1 ? verdicts.keySet().iterator().next()
                : verdicts.keySet().stream().reduce(Verdict.SAFE, Verdict::worse);
    }

    Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("lab", lab.id());
        json.put("strategy", spec.strategy());
        json.put("workers", spec.workers());
        json.put("ops", spec.ops());
        json.put("runs", runs);
        json.put("plannedRuns", Math.max(planned, runs));
        json.put("seed", spec.seed());
        json.put("delays", spec.gates().describe(lab::workerName));
        json.put("switches", spec.switches().describe(lab.switches()));
        if (runs > 0 || serverFailure != null) {
            // With no run, no lab's verdict: ERROR if a server failed the command, else none at all.
            json.put("verdict", runs > 0 ? verdict().name() : Verdict.ERROR.name());
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        verdicts.forEach((v, n) -> counts.put(v.name(), n));
        json.put("verdicts", counts);
        if (lastOutcome != null) {
            json.put("headline", lastOutcome.headline());
            json.put("explanation", lastOutcome.explanation());
        } else {
            json.put("headline", serverFailure != null ? "no run: a server failed" : "no run: interrupted by a signal");
            json.put("explanation", serverFailure != null ? serverFailure
                    : "A signal came before any run started; nothing ran.");
        }
        json.put("violations", violations);
        json.put("metrics", lastOutcome == null ? Map.of() : lastOutcome.metrics());
        json.put("events", events);
        json.put("elapsedMs", elapsedMs);
        json.put("startupMs", startupMs);
        json.put("backend", lastBackend);
        json.put("interrupted", interrupted);
        if (serverFailure != null) {
            json.put("serverFailure", serverFailure);
        }
        if (sweep != null) {
            Map<String, Object> swept = new LinkedHashMap<>();
            swept.put("gate", sweep.gate());
            swept.put("worker", sweep.worker() < 0 ? null : lab.workerName(sweep.worker()));
            swept.put("from", sweep.from());
            swept.put("to", sweep.to());
            swept.put("step", sweep.step());
            json.put("sweep", swept);
            json.put("points", points.stream().map(Point::toJson).toList());
        }
        return json;
    }

    String verdictCounts() {
        return verdicts.entrySet().stream().map(e -> e.getKey() + " ×" + e.getValue())
                .collect(Collectors.joining(", "));
    }

    void print(PrintStream out) {
        String delays = spec.gates().describe(lab::workerName);
        String switches = spec.switches().describe(lab.switches()).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
        out.printf("%s · %s · %d %s%s × %d %s%s%s%n", lab.id(), spec.strategy(), spec.workers(),
                lab.workerRole(), spec.workers() == 1 ? "" : "s", spec.ops(), spec.ops() == 1 ? "op" : "ops",
                delays.isEmpty() ? "" : " · " + delays, switches.isEmpty() ? "" : " · " + switches);
        if (interrupted) {
            out.println(lastOutcome == null ? "interrupted by a signal before any run started"
                    : "interrupted by a signal: the run in progress was stopped");
        }
        if (sweep != null) {
            out.println("sweep " + sweep.describe(lab::workerName) + ", " + (runs / Math.max(1, points.size()))
                    + " runs at each delay:");
            out.println("  delay ms   runs   failed   " + String.join("  ", java.util.Arrays.stream(Verdict.values())
                    .map(v -> String.format("%8s", v)).toList()));
            for (Point point : points) {
                out.printf("  %8d %6d %7d%%   %s%n", point.delay, point.runs,
                        point.runs == 0 ? 0 : Math.round(100.0 * point.failed() / point.runs),
                        String.join("  ", java.util.Arrays.stream(Verdict.values())
                                .map(v -> String.format("%8d", point.verdicts.getOrDefault(v, 0))).toList()));
            }
        }
        boolean batch = runs > 1 || planned > 1;
        if (runs == 0) {
            out.printf("no run ran (%d asked for)%n", Math.max(1, planned));
        } else if (batch) {
            // The batch's own figures here; the lines under "last run:" are that run's alone.
            out.printf("%s runs: %s%n", runs < planned ? runs + " of " + planned : String.valueOf(runs),
                    verdictCounts());
            violations.forEach((name, count) -> out.printf("  %s: %d in all%n", Printable.line(name), count));
            out.printf("  %d ms · %d events in all%n", elapsedMs, events);
        }
        if (serverFailure != null) {
            out.println("a server failed: " + Printable.line(serverFailure));
        }
        if (lastOutcome == null) {
            return;
        }
        if (batch) {
            out.println("last run:");
        }
        // What the record says in words may come from a file: shown with its controls escaped.
        Outcome outcome = lastOutcome;
        out.println(Printable.line(outcome.banner()));
        out.println("  " + Printable.line(outcome.explanation()));
        outcome.violations().forEach((name, count) -> out.printf("  %s: %d%n", Printable.line(name), count));
        out.println("  " + outcome.metrics().entrySet().stream()
                .map(e -> Printable.line(e.getKey()) + " " + e.getValue()).collect(Collectors.joining(" · ")));
        if (batch) {
            out.printf("  %d events%n", lastEvents);
        } else {
            out.printf("  %d ms · %d events%n", elapsedMs, events);
        }
        lastBackend.forEach((service, what) -> out.printf("  %s: %s%n", Printable.line(service),
                Printable.line(what)));
    }
}
