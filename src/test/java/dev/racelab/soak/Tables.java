package dev.racelab.soak;

import dev.racelab.engine.lab.Lab;
import dev.racelab.soak.Report.Result;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The soak's account at its end: runs by lab and fault, by outcome and fault, the slowest end after
 * each fault, what changed outside RaceLab's namespace, and each failure with what it takes to
 * reproduce it, written to {@code failures.txt}.
 */
final class Tables {

    private final List<Lab> labs;
    private final boolean useExternal;
    private final Path home;
    private final Path work;
    private final long seed;

    Tables(List<Lab> labs, boolean useExternal, Path home, Path work, long seed) {
        this.labs = labs;
        this.useExternal = useExternal;
        this.home = home;
        this.work = work;
        this.seed = seed;
    }

    int summarize(List<Report> reports, List<String> namespaceChanges, List<String> strays, double wall)
            throws IOException {
        PrintStream out = System.out;
        List<Lab> all = labs;
        out.println();
        out.println("runs by lab × fault (failures in brackets)");
        out.printf("%-22s", "");
        for (Fault fault : Fault.values()) {
            out.printf("%15s", fault.label());
        }
        out.printf("%10s%n", "all");
        for (Lab lab : all) {
            out.printf("%-22s", lab.id());
            for (Fault fault : Fault.values()) {
                out.printf("%15s", cell(reports.stream().filter(r -> r.plan().lab() == lab
                        && r.plan().fault() == fault).toList()));
            }
            out.printf("%10s%n", cell(reports.stream().filter(r -> r.plan().lab() == lab).toList()));
        }
        out.printf("%-22s", "embedded servers");
        for (Fault fault : Fault.values()) {
            out.printf("%15s", cell(reports.stream().filter(r -> !r.plan().external() && r.plan().fault() == fault).toList()));
        }
        out.printf("%10s%n", cell(reports.stream().filter(r -> !r.plan().external()).toList()));
        out.printf("%-22s", "external servers");
        for (Fault fault : Fault.values()) {
            out.printf("%15s", cell(reports.stream().filter(r -> r.plan().external() && r.plan().fault() == fault).toList()));
        }
        out.printf("%10s%n", cell(reports.stream().filter(r -> r.plan().external()).toList()));

        out.println();
        out.println("runs by outcome × fault");
        out.printf("%-26s", "");
        for (Fault fault : Fault.values()) {
            out.printf("%15s", fault.label());
        }
        out.printf("%10s%n", "all");
        for (Result result : Result.values()) {
            out.printf("%-26s", result.label + (result.failure() ? " ✗" : ""));
            for (Fault fault : Fault.values()) {
                long n = reports.stream().filter(r -> r.result() == result && r.plan().fault() == fault).count();
                out.printf("%15s", n == 0 ? "·" : String.valueOf(n));
            }
            out.printf("%10d%n", reports.stream().filter(r -> r.result() == result).count());
        }

        out.printf("%-26s", "slowest end after fault");
        for (Fault fault : Fault.values()) {
            out.printf("%15s", reports.stream().filter(r -> r.plan().fault() == fault && !r.result().failure())
                    .mapToDouble(r -> r.exitSeconds() - (r.faultSeconds() >= 0 ? r.faultSeconds()
                            : Math.max(0, r.underWaySeconds())))
                    .max().stream().mapToObj(x -> String.format("%.1f s", x)).findFirst().orElse("·"));
        }
        out.println("   (none: after the workers were seen; failures left out)");

        List<Report> failures = reports.stream().filter(r -> r.result().failure()).toList();
        out.println();
        if (useExternal) {
            out.println(namespaceChanges.isEmpty()
                    ? "outside schema racelab and keys racelab:*: nothing changed (sentinels " + External.SENTINEL_SCHEMA
                    + ".t and " + External.SENTINEL_KEY + " as planted, now removed)"
                    : "outside schema racelab and keys racelab:*, CHANGED:\n  " + String.join("\n  ", namespaceChanges));
        }
        if (!strays.isEmpty()) {
            out.println("processes still running from " + home + " after the soak (killed): " + strays);
        }
        out.printf("%d runs, %d failed, %d fault-too-late; wall time %.0f s (%.1f min); seed %d%n", reports.size(),
                failures.size(), reports.stream().filter(r -> r.result() == Result.FAULT_TOO_LATE).count(), wall,
                wall / 60, seed);
        if (!failures.isEmpty()) {
            Path file = work.resolve("failures.txt");
            Files.writeString(file, failures(failures));
            out.println("each failure, with its command line, times and output: " + file
                    + " (its recording and output beside it, run-NNN.*)");
        }
        boolean failed = !failures.isEmpty() || !namespaceChanges.isEmpty() || !strays.isEmpty();
        return failed ? 1 : 0;
    }

    private static String cell(List<Report> reports) {
        if (reports.isEmpty()) {
            return "·";
        }
        long failed = reports.stream().filter(r -> r.result().failure()).count();
        return reports.size() + (failed == 0 ? "" : " [" + failed + "]");
    }

    private String failures(List<Report> failures) {
        StringBuilder text = new StringBuilder();
        text.append("Soak failures. Reproduce all runs with: scripts/soak <runs> ").append(seed)
                .append(" (run N of any length of soak with this seed is drawn the same).\n");
        Map<Result, Integer> counts = new TreeMap<>(Comparator.comparing(Result::ordinal));
        failures.forEach(r -> counts.merge(r.result(), 1, Integer::sum));
        text.append(counts).append("\n");
        for (Report r : failures) {
            Plan p = r.plan();
            text.append("\n== run ").append(p.number()).append(": ").append(r.result().label).append("\n");
            text.append("plan:      ").append(p.describe()).append("\n");
            text.append("inflicted: ").append(r.inflicted() == null ? "nothing" : r.inflicted())
                    .append(r.note() == null ? "" : " (" + r.note() + ")").append("\n");
            text.append(String.format("times:     under way %s, fault %s, result printed %s, ended %.2f s after start "
                            + "(bound %.2f s)%n", at(r.underWaySeconds()), at(r.faultSeconds()), at(r.printedSeconds()),
                    r.exitSeconds(), r.boundSeconds()));
            text.append("exit:      ").append(r.exit()).append(", verdict ").append(r.verdict()).append("\n");
            text.append("problems:  ").append(String.join("\n           ", r.problems())).append("\n");
            text.append("command:   RACELAB_HOME=").append(home).append(" ").append(String.join(" ", r.command()))
                    .append("\n");
            text.append("stderr (tail):\n").append(indent(r.stderrTail()));
            text.append("outcome (standard output):\n").append(indent(r.outcome()));
        }
        return text.toString();
    }

    private static String at(double seconds) {
        return seconds < 0 ? "never" : String.format("%.2f s", seconds);
    }

    static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    private static String indent(String text) {
        return text.isEmpty() ? "    (empty)\n" : text.lines().map(l -> "    " + l + "\n").reduce("", String::concat);
    }
}
