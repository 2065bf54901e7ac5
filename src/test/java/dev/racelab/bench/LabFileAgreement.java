package dev.racelab.bench;

import dev.racelab.engine.Clock;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The lab files that mirror a built-in lab, beside that lab: the same strategy, workers,
 * operations and seed, round by round (who goes first alternating), each run's verdict and the
 * count the race is measured by (increments lost, stale writes applied). Two labs that tell the
 * same race agree on the verdicts and their counts differ no more than two runs of one lab do:
 * the Mann–Whitney test of the two samples, beside each one's spread.
 *
 * <p>{@code scripts/bench labfiles [rounds]}; the servers are the tests' (RACELAB_PG_URL and
 * RACELAB_REDIS_URL, or the embedded ones).
 */
public final class LabFileAgreement {

    private static final Path FILES = Path.of("src/main/resources/dev/racelab/labfiles");

    /** One pair: the built-in lab and strategy, the file and its strategy, each run's count of each. */
    private record Pair(String lab, String strategy, String file, String fileStrategy, ToLongFunction<Outcome> count,
                        ToLongFunction<Outcome> fileCount, String what) {
    }

    private LabFileAgreement() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        Labs labs = new Labs(TestServers.backends());
        ToLongFunction<Outcome> lostJava = o -> metric(o, "lostIncrements");
        ToLongFunction<Outcome> lostFile = o -> metric(o, "opsCompleted") - metric(o, "lost increment");
        ToLongFunction<Outcome> staleJava = o -> metric(o, "staleWritesApplied");
        ToLongFunction<Outcome> staleFile = o -> metric(o, "stale write");
        List<Pair> pairs = List.of(
                new Pair("counter", "read-modify-write", "counter", "read_modify_write", lostJava, lostFile,
                        "increments lost"),
                new Pair("counter", "select-for-update", "counter", "select_for_update", lostJava, lostFile,
                        "increments lost"),
                new Pair("fencing", "check-then-write", "fencing", "check_then_write", staleJava, staleFile,
                        "stale writes applied"),
                new Pair("fencing", "fenced-cas", "fencing", "fenced_cas", staleJava, staleFile,
                        "stale writes applied"),
                new Pair("lease-fencing", "lease-only", "lease-lock", "lease_only", staleJava, staleFile,
                        "stale writes applied"),
                new Pair("lease-fencing", "fenced", "lease-lock", "fenced", staleJava, staleFile,
                        "stale writes applied"));
        System.out.printf("lab files beside the built-in labs they mirror: %d rounds each, same seed per round, who "
                        + "goes first alternating; %d cores; load %.1f; %s; %s%n", rounds,
                Runtime.getRuntime().availableProcessors(), MachineLoad.oneMinute(),
                TestServers.backends().describe(dev.racelab.engine.Service.POSTGRES),
                TestServers.backends().describe(dev.racelab.engine.Service.REDIS));
        for (Pair pair : pairs) {
            Lab builtIn = labs.find(pair.lab()).orElseThrow();
            Lab file = labs.read(FILES.resolve(pair.file() + ".lab"));
            RunSpec javaSpec = builtIn.defaults().withStrategy(pair.strategy());
            RunSpec fileSpec = file.defaults().withStrategy(pair.fileStrategy());
            System.out.printf("%n%s %s (%d × %d, %s)  beside  %s.lab %s (%d × %d, %s): %s%n", pair.lab(),
                    pair.strategy(), javaSpec.workers(), javaSpec.ops(), javaSpec.gates().describe(builtIn::workerName),
                    pair.file(), pair.fileStrategy(), fileSpec.workers(), fileSpec.ops(),
                    fileSpec.gates().describe(file::workerName), pair.what());
            long[] ours = new long[rounds];
            long[] theirs = new long[rounds];
            int sameVerdict = 0;
            StringBuilder line = new StringBuilder();
            for (int round = 0; round < rounds; round++) {
                boolean javaFirst = round % 2 == 0;
                Outcome first = run(javaFirst ? builtIn : file, (javaFirst ? javaSpec : fileSpec).withSeed(round + 1));
                Outcome second = run(javaFirst ? file : builtIn, (javaFirst ? fileSpec : javaSpec).withSeed(round + 1));
                Outcome java = javaFirst ? first : second;
                Outcome fromFile = javaFirst ? second : first;
                ours[round] = pair.count().applyAsLong(java);
                theirs[round] = pair.fileCount().applyAsLong(fromFile);
                sameVerdict += java.verdict() == fromFile.verdict() ? 1 : 0;
                line.append(String.format(" %s%d/%s%d", java.verdict().name().charAt(0), ours[round],
                        fromFile.verdict().name().charAt(0), theirs[round]));
            }
            double p = LostBenchmark.mannWhitneyP(ours, theirs);
            System.out.printf("  runs (built-in/file, verdict initial and count):%s%n", line);
            System.out.printf("  same verdict in %d of %d rounds; %s: built-in median %.1f (%d-%d), file median %.1f "
                            + "(%d-%d); Mann–Whitney p = %.3g (%s); load %.1f%n", sameVerdict, rounds, pair.what(),
                    median(ours), min(ours), max(ours), median(theirs), min(theirs), max(theirs), p,
                    Double.isNaN(p) || p > 0.05 ? "indistinguishable at 0.05" : "DIFFERENT at 0.05",
                    MachineLoad.oneMinute());
        }
        System.exit(0);
    }

    private static Outcome run(Lab lab, RunSpec spec) throws Exception {
        Run run = new Run(lab, spec.withTimeout(Duration.ofMinutes(1)), Clock.system());
        run.start();
        return run.awaitOutcome(Duration.ofMinutes(2));
    }

    private static long metric(Outcome outcome, String name) {
        Number n = outcome.metrics().get(name);
        return n == null ? 0 : n.longValue();
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    private static long min(long[] values) {
        return java.util.Arrays.stream(values).min().orElse(0);
    }

    private static long max(long[] values) {
        return java.util.Arrays.stream(values).max().orElse(0);
    }
}
