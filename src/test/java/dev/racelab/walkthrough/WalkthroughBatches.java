package dev.racelab.walkthrough;

import dev.racelab.engine.Batch;
import dev.racelab.engine.Clock;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Sweep;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs the batch of every lab's own walkthrough as the window would (the settings each step
 * leaves, the batch step's runs of each strategy it names) and prints, per strategy, how many runs
 * showed the lab's failure and how long the batch took: the evidence that a walkthrough's
 * documented delay provokes its race nearly every time and that its fix never shows it.
 *
 * <p>{@code scripts/bench walkthroughs [lab…]}: every lab by default; uses {@code RACELAB_PG_URL} /
 * {@code RACELAB_REDIS_URL} or the embedded servers. It prints figures and never fails a build.
 */
public final class WalkthroughBatches {

    private WalkthroughBatches() {
    }

    public static void main(String[] args) throws Exception {
        Labs labs = new Labs(TestServers.backends());
        WalkthroughReader reader = new WalkthroughReader(labs::find);
        List<String> chosen = args.length > 0 ? List.of(args) : labs.all().stream().map(Lab::id).toList();
        System.out.printf(Locale.ROOT, "%-20s %-20s %-7s %9s  %-28s %8s%n", "lab", "strategy", "kind", "failed",
                "verdicts", "seconds");
        List<String> misses = new ArrayList<>();
        for (String id : chosen) {
            Lab lab = labs.find(id).orElseThrow(() -> new IllegalArgumentException("no lab " + id));
            String resource = "/dev/racelab/walkthroughs/" + id + ".walkthrough";
            Walkthrough walkthrough;
            try (InputStream in = WalkthroughBatches.class.getResourceAsStream(resource)) {
                if (in == null) {
                    System.out.printf("%-20s no walkthrough%n", id);
                    continue;
                }
                walkthrough = reader.read(resource, in);
            }
            RunSpec spec = lab.defaults();
            for (Walkthrough.Step step : walkthrough.steps()) {
                if (step.lab() != null && !step.lab().equals(id)) {
                    break; // a lesson that moves to another lab: its own batches are that lab's
                }
                spec = apply(lab, spec, step);
                if (step.batch() == null) {
                    continue;
                }
                Walkthrough.BatchOrder order = step.batch();
                List<String> strategies = order.strategies().isEmpty()
                        ? lab.strategies().stream().map(dev.racelab.engine.Strategy::id).toList() : order.strategies();
                Sweep sweep = order.sweep() == null ? null : Sweep.parse(order.sweep(), lab, spec.workers());
                for (String strategy : strategies) {
                    long start = System.nanoTime();
                    String[] firstError = {null};
                    Batch.Result result = new Batch(lab, spec, List.of(strategy), order.runs(), sweep, Clock.system(),
                            run -> { }).run((done, total, delay, record) -> {
                                if (firstError[0] == null && record.outcome().verdict() == Verdict.ERROR) {
                                    firstError[0] = record.outcome().explanation();
                                }
                            });
                    double seconds = (System.nanoTime() - start) / 1e9;
                    List<Batch.Point> points = result.points().getOrDefault(strategy, List.of());
                    int runs = points.stream().mapToInt(Batch.Point::runs).sum();
                    int failed = points.stream().mapToInt(Batch.Point::failed).sum();
                    boolean broken = lab.strategy(strategy).orElseThrow().broken();
                    // A lab whose every strategy may fail (isolation: a spec's permutation decides)
                    // is judged per step: every run of a schedule must end the same way.
                    boolean perStep = lab.strategies().stream().allMatch(dev.racelab.engine.Strategy::broken);
                    String verdicts = points.stream().flatMap(p -> p.verdicts().entrySet().stream())
                            .collect(Collectors.groupingBy(Map.Entry::getKey, () -> new java.util.EnumMap<>(Verdict.class),
                                    Collectors.summingInt(Map.Entry::getValue)))
                            .entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                            .collect(Collectors.joining(", "));
                    String settings = step.switches().isEmpty() ? "" : " " + String.join(" ", step.switches());
                    System.out.printf(Locale.ROOT, "%-20s %-20s %-7s %4d/%-4d  %-28s %8.1f%n", id, strategy + settings,
                            perStep ? "step" : broken ? "broken" : "fix", failed, runs, verdicts, seconds);
                    if (firstError[0] != null) {
                        System.out.println("  the first ERROR: " + firstError[0]);
                    }
                    if (result.serverFailure() != null) {
                        System.out.println("  a server failed: " + result.serverFailure());
                    }
                    if (perStep ? failed != 0 && failed != runs : broken ? failed < runs * 99 / 100 : failed > 0) {
                        misses.add(id + "/" + strategy + " " + failed + " of " + runs);
                    }
                }
            }
        }
        System.out.println(misses.isEmpty() ? "every broken strategy failed in at least 99 of 100 runs, every fix in none,"
                + " every schedule (isolation) ended the same way every time"
                : "short of the mark: " + String.join("; ", misses));
    }

    /** The settings after {@code step}, as the window's walkthrough bar leaves them (WalkthroughSteps.showStep). */
    private static RunSpec apply(Lab lab, RunSpec spec, Walkthrough.Step step) {
        if (step.strategy() != null) {
            spec = spec.withStrategy(step.strategy());
        }
        if (step.workers() != null) {
            spec = spec.withWorkers(step.workers());
        }
        if (step.ops() != null) {
            spec = spec.withOps(step.ops());
        }
        if (step.gates() != null) {
            int workers = spec.workers();
            spec = spec.withGates(GatePlan.parse(step.gates(), name -> lab.workerIndex(name, workers)));
        }
        SwitchValues values = spec.switches();
        for (String set : step.switches()) {
            int eq = set.indexOf('=');
            values = values.parse(lab.profile().switchNamed(set.substring(0, eq)).orElseThrow(), set.substring(eq + 1));
        }
        return spec.withSwitches(values);
    }
}
