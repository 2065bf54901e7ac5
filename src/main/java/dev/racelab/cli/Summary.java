package dev.racelab.cli;

import dev.racelab.engine.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Verdict;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The result of {@code racelab run}, as text or as the contract's JSON object. With several runs,
 * {@code violations} sum over the runs and {@code metrics} are those of the last run.
 */
record Summary(Lab lab, RunOptions options, Verdict verdict, Map<Verdict, Integer> verdicts,
               Map<String, Long> violations, Outcome last, long events, long elapsedMs, long startupMs,
               Map<String, String> backend) {

    Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("lab", lab.id());
        json.put("strategy", options.spec().strategy());
        json.put("workers", options.spec().workers());
        json.put("ops", options.spec().ops());
        json.put("runs", options.runs());
        json.put("seed", options.spec().seed());
        json.put("delays", options.spec().gates().describe(lab::workerName));
        json.put("verdict", verdict.name());
        Map<String, Integer> counts = new LinkedHashMap<>();
        verdicts.forEach((v, n) -> counts.put(v.name(), n));
        json.put("verdicts", counts);
        json.put("headline", last.headline());
        json.put("explanation", last.explanation());
        json.put("violations", violations);
        json.put("metrics", last.metrics());
        json.put("events", events);
        json.put("elapsedMs", elapsedMs);
        json.put("startupMs", startupMs);
        json.put("backend", backend);
        return json;
    }

    String verdictCounts() {
        return verdicts.entrySet().stream().map(e -> e.getKey() + " ×" + e.getValue())
                .collect(Collectors.joining(", "));
    }

    void print(PrintStream out) {
        String delays = options.spec().gates().describe(lab::workerName);
        out.printf("%s · %s · %d %s%s × %d ops%s%n", lab.id(), options.spec().strategy(), options.spec().workers(),
                lab.workerRole(), options.spec().workers() == 1 ? "" : "s", options.spec().ops(),
                delays.isEmpty() ? "" : " · " + delays);
        if (options.runs() > 1) {
            out.printf("%d runs: %s%n", options.runs(), verdictCounts());
            out.println("last run:");
        }
        out.println(last.banner());
        out.println("  " + last.explanation());
        violations.forEach((name, count) -> out.printf("  %s: %d%n", name, count));
        out.println("  " + last.metrics().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(" · ")));
        out.printf("  %d ms · %d events%n", elapsedMs, events);
        backend.forEach((service, what) -> out.printf("  %s: %s%n", service, what));
    }
}
