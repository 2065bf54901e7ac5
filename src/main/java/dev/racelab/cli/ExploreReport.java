package dev.racelab.cli;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Event;
import dev.racelab.engine.Steering;
import dev.racelab.engine.explore.Exploration;
import dev.racelab.engine.explore.Found;
import dev.racelab.engine.explore.Method;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What {@code explore} prints: a summary for people, or one JSON object. */
final class ExploreReport {

    /** Failing schedules listed in the text; the JSON lists every one kept. */
    private static final int LISTED = 10;

    private final Lab lab;
    private final Exploration found;
    private final int workers;
    private final int ops;
    private final Path shrunkFile;

    ExploreReport(Lab lab, Exploration found, int workers, int ops, Path shrunkFile) {
        this.lab = lab;
        this.found = found;
        this.workers = workers;
        this.ops = ops;
        this.shrunkFile = shrunkFile;
    }

    void print(PrintStream out) {
        out.println("explore " + lab.id() + " · " + found.strategy() + " · " + workers + " " + lab.workerRole()
                + (workers == 1 ? "" : "s") + " × " + ops + (ops == 1 ? " operation" : " operations") + " · "
                + method());
        out.println("gate passages per worker: " + passages() + " (in the first schedule; gates: "
                + String.join(", ", lab.gates().stream().map(g -> g.id()).toList()) + ")");
        out.println("space: " + space());
        out.printf(Locale.ROOT, "ran %d schedule%s in %.2f s, %.1f a second%s%n", found.schedules(),
                found.schedules() == 1 ? "" : "s", found.elapsedNanos() / 1e9, found.schedulesPerSecond(), stopped());
        out.println("outcomes: " + outcomes());
        if (found.diverged() > 0) {
            out.println("note: " + found.diverged() + " schedule(s) went otherwise than the same choices went before "
                    + "(the servers answered differently); the space was counted as they went");
        }
        if (found.serverFailure() != null) {
            out.println("stopped: " + found.serverFailure());
        }
        if (found.failingCount() == 0) {
            out.println(found.exhausted()
                    ? "no failing schedule among " + found.schedules() + ": the whole space " + whose() + " ran"
                    : "no failing schedule among the " + found.schedules() + " that ran (not the whole space)");
            return;
        }
        out.printf(Locale.ROOT, "failing: %d of %d; the first was schedule %d, after %.2f s%n", found.failingCount(),
                found.schedules(), found.firstFailure() + 1, found.firstFailureNanos() / 1e9);
        for (Found f : found.failing().subList(0, Math.min(LISTED, found.failing().size()))) {
            out.println("  #" + (f.index() + 1) + "  " + f.verdict() + " " + f.headline() + " · "
                    + preemptions(f.preemptions()) + " · " + f.schedule().describe(lab::workerName));
        }
        if (found.failingCount() > LISTED) {
            out.println("  … and " + (found.failingCount() - LISTED) + " more (--json lists up to 200)");
        }
        Exploration.Shrunk shrunk = found.shrunk();
        if (shrunk == null) {
            return;
        }
        Found s = shrunk.found();
        out.println("shrunk: " + s.verdict() + " " + s.headline() + " with " + preemptions(s.preemptions()) + " and "
                + s.schedule().size() + " passages" + (shrunk.fewest()
                ? ": no schedule with fewer preemptions fails so"
                : ": fewer preemptions not ruled out in the time given") + " (" + shrunk.candidates()
                + (shrunk.candidates() == 1 ? " schedule" : " schedules") + " run to shrink it)");
        out.println("  " + s.interleaving());
        if (liveness(shrunk)) {
            out.println("  a liveness failure: judged on this finite schedule as the lab judges a run at its timeout, "
                    + "once nothing could move the workers any more");
        }
        out.println("  schedule: " + s.schedule().describe(lab::workerName));
        out.println(shrunk.confirmed() ? "  followed again passage for passage: " + s.verdict() + " again"
                : "  followed again passage for passage, it did not end the same way: the servers answered differently");
        if (shrunkFile != null) {
            out.println("  saved: " + shrunkFile + " (racelab rerun FILE follows it again; replay FILE shows it)");
        }
    }

    /** Whether the shrunk failure was judged once nothing could move its workers: a liveness failure. */
    private static boolean liveness(Exploration.Shrunk shrunk) {
        if (shrunk.record() == null) {
            return false;
        }
        for (Event e : shrunk.record().events().upToNow()) {
            if (Steering.judgedAtRest(e)) {
                return true;
            }
        }
        return false;
    }

    Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("lab", lab.id());
        json.put("strategy", found.strategy());
        json.put("method", found.method().id());
        json.put("preemptionBound", found.bound());
        json.put("workers", workers);
        json.put("ops", ops);
        List<Integer> passages = new ArrayList<>();
        for (int p : found.passages()) {
            passages.add(p);
        }
        json.put("passages", passages);
        json.put("space", found.space());
        json.put("spaceCounted", found.method().enumerates() ? "the leaves of the search tree, as it ran; "
                + "no reduction: schedules leading to the same server steps are counted apart" : null);
        json.put("exhausted", found.exhausted());
        json.put("stoppedBy", found.stoppedBy());
        json.put("schedules", found.schedules());
        json.put("failing", found.failingCount());
        Map<String, Integer> outcomes = new LinkedHashMap<>();
        found.outcomes().forEach((verdict, count) -> outcomes.put(verdict.name(), count));
        json.put("outcomes", outcomes);
        json.put("headlines", found.headlines());
        json.put("schedulesPerSecond", Math.round(found.schedulesPerSecond() * 10) / 10.0);
        json.put("elapsedMs", found.elapsedNanos() / 1_000_000);
        json.put("firstFailure", found.firstFailure());
        json.put("firstFailureMs", found.firstFailureNanos() < 0 ? null : found.firstFailureNanos() / 1_000_000);
        json.put("diverged", found.diverged());
        json.put("serverFailure", found.serverFailure());
        List<Object> failing = new ArrayList<>();
        for (Found f : found.failing()) {
            failing.add(schedule(f));
        }
        json.put("failingSchedules", failing);
        Exploration.Shrunk shrunk = found.shrunk();
        if (shrunk == null) {
            json.put("shrunk", null);
        } else {
            Map<String, Object> s = schedule(shrunk.found());
            // Found while shrinking, it is none of the schedules the exploration lists.
            s.put("index", shrunk.found().index() < found.schedules() ? shrunk.found().index() : null);
            s.put("fewestPreemptions", shrunk.fewest());
            s.put("candidates", shrunk.candidates());
            s.put("confirmed", shrunk.confirmed());
            // A run judged once nothing could move its workers: a liveness failure on a finite schedule.
            s.put("liveness", liveness(shrunk));
            s.put("file", shrunkFile == null ? null : shrunkFile.toString());
            json.put("shrunk", s);
        }
        return json;
    }

    private Map<String, Object> schedule(Found f) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("index", f.index());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < f.schedule().size(); i++) {
            names.add(lab.workerName(f.schedule().at(i)));
        }
        json.put("schedule", names);
        json.put("preemptions", f.preemptions());
        json.put("verdict", f.verdict().name());
        json.put("headline", f.headline());
        json.put("interleaving", f.interleaving());
        return json;
    }

    private String method() {
        return switch (found.method()) {
            case ALL -> "every interleaving";
            case BOUNDED -> "every interleaving with at most " + preemptions(found.bound());
            case PCT, RANDOM -> found.method().id() + " (seeded)";
        };
    }

    private String passages() {
        List<String> parts = new ArrayList<>();
        for (int w = 0; w < found.passages().length; w++) {
            parts.add(lab.workerName(w) + " " + found.passages()[w]);
        }
        return String.join(", ", parts);
    }

    private String space() {
        if (found.space() != null) {
            return found.space() + " schedules " + whose() + ", counted as the leaves of the search tree as it ran "
                    + "(no reduction), every one run";
        }
        if (found.method().enumerates()) {
            return "not counted: the search stopped before the end (" + found.stoppedBy() + ")";
        }
        return "not counted: " + found.method().id() + " samples it";
    }

    private String whose() {
        return found.method() == Method.BOUNDED ? "with at most " + preemptions(found.bound()) : "of every interleaving";
    }

    private String stopped() {
        if (found.exhausted()) {
            return ", the whole space";
        }
        return found.stoppedBy() == null ? "" : "; stopped by " + switch (found.stoppedBy()) {
            case "schedules" -> "--schedules";
            case "time" -> "--time";
            case "cancelled" -> "a signal";
            case "diverged" -> "schedules that went otherwise than the same choices before: the space is not known "
                    + "exactly";
            default -> "a server's failure";
        };
    }

    private String outcomes() {
        List<String> parts = new ArrayList<>();
        found.headlines().forEach((headline, count) -> parts.add(headline + " ×" + count));
        List<String> verdicts = new ArrayList<>();
        found.outcomes().forEach((verdict, count) -> verdicts.add(verdict + " " + count));
        return String.join(" · ", verdicts) + (parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")");
    }

    private static String preemptions(Integer n) {
        return n + (n == 1 ? " preemption" : " preemptions");
    }
}
