package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.engine.Clock;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.Labs;
import dev.racelab.labs.isolation.IsolationLab;
import dev.racelab.support.SentStatements;
import dev.racelab.support.TestServers;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What RaceLab's instrumentation costs: each PostgreSQL strategy of each lab, run as a real
 * {@link Run} (as {@code scripts/racelab run} runs it without {@code --record}: no observers, and
 * here no gates) beside its {@link RawTwin}, a plain client that sends what a plain program sends
 * for that strategy (the lab's own statements, the same parameters, the same transaction handling)
 * from as many threads, on rows of its own, on the same server, in the same process. A third side
 * runs the lab again observing the servers, as the window's runs and recorded runs do: the two
 * ratios side by side say what the client costs and what observing adds. A fourth side runs the
 * raw twin a second time: the raw client against itself (A/A) shows how far a round swings with
 * nothing to tell the two sides apart, the floor under what a worst round can say.
 *
 * <p>Rounds rotate which side goes first; the first round warms all up and sizes the later ones
 * (operations per worker so that a raw round takes about the target time) and is not counted.
 * Before each side the lab's tables are vacuumed and the JVM's garbage collected (in a heap of
 * fixed size: a growable one shrinks at each collection, and RaceLab's side, which keeps every
 * event it records, would pay young collections for the heap's regrowth). A RaceLab round's rate
 * is the run's own {@code opsPerSec}, which times the workers' phase only; a raw round is timed
 * the same way, from starting its threads to the last one ending, with its connections already
 * open. The figure is RaceLab's rate over the raw rate: the median over the rounds, a bootstrap 95%
 * interval of that median (on two busy cores a single round swings by a quarter either way, as a
 * run of the raw client against itself shows), and the worst round. The goal is ≥ 0.95 in the
 * median and ≥ 0.9 in every round. Beside it, the CPU this process spent per operation on each
 * side: on a busy machine the rates swing from round to round, the client's own cost much less,
 * and it is where instrumentation would show.
 *
 * <p>Before timing anything it counts the statements each side sends to PostgreSQL per operation,
 * with the lab's fewest workers (one, or a producer and one consumer), from pgjdbc's own log of
 * what it puts on the wire: the two columns must agree, or the comparison is not fair.
 *
 * <p>Run with {@code scripts/bench overhead [rounds] [seconds-per-round] [workers] [lab/strategy
 * prefix]}; uses {@code RACELAB_PG_URL} or the embedded PostgreSQL (and Redis, for the lease lock).
 */
public final class OverheadBenchmark {

    private static final int DEFAULT_WORKERS = 8;
    private static final int SIZING_OPS = 100;
    private static final int COUNTING_OPS = 50;
    private static final double GOAL = 0.95;
    private static final double WORST_ROUND_GOAL = 0.9;
    private static final Duration RUN_WAIT = Duration.ofMinutes(5);

    private static final com.sun.management.OperatingSystemMXBean JVM =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** The raw twin of each lab strategy, by {@code lab/strategy}: what a plain program sends, and nothing else. */
    private static final Map<String, RawTwin> TWINS = twins();

    private static final long SETTLE_MILLIS = 300;

    private OverheadBenchmark() {
    }

    private static Map<String, RawTwin> twins() {
        Map<String, RawTwin> all = new TreeMap<>();
        all.putAll(RowTwins.all());
        all.putAll(JobQueueTwins.all());
        all.putAll(AdvisoryTwins.all());
        all.putAll(LeaseFencingTwins.all());
        return all;
    }

    /** Why a lab strategy has no raw twin, by lab: it is not a client sending operations. */
    private static final Map<String, String> NO_TWIN = Map.of(IsolationLab.ID,
            "plays one permutation of a spec per run (one step list per session, a few statements in all): "
                    + "its peer is isolationtester, in scripts/bench isolation");

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 31;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : DEFAULT_WORKERS;
        String only = args.length > 3 ? args[3] : "";
        Postgres postgres = TestServers.postgres();
        System.out.printf("instrumentation overhead: a RaceLab run (%d workers, no gates, not observing) beside a raw "
                        + "client sending what a plain program sends, and beside them the run observing the servers; "
                        + "%d rounds of ~%.1f s each after one to warm up, rotating who goes first; %d cores; heap %s; "
                        + "%s; load %.1f%n", workers, rounds, seconds, Runtime.getRuntime().availableProcessors(),
                heap(), postgres.describe(), JVM.getSystemLoadAverage());
        System.out.println("statements/op: what pgjdbc sends per operation with the lab's fewest workers, RaceLab | raw; "
                + "JVM µs/op: this process's CPU per operation, set-up included, RaceLab | observing | raw (median); "
                + "ratio: RaceLab ops/s ÷ raw ops/s, the median of the rounds, with its 95% interval (bootstrap) "
                + "and the worst round; observed: the same for the run observing the servers; raw/raw: the raw client "
                + "run again in each round over its first run (A/A), median and worst: how far a round swings alone");
        System.out.printf("%-32s %10s %13s %19s %11s %11s %6s %13s %6s %8s %6s %7s %6s %5s  %s%n", "lab/strategy",
                "ops/worker", "statements/op", "JVM µs/op", "RaceLab/s", "raw/s", "ratio", "95% interval", "min",
                "observed", "min", "raw/raw", "min", "load", "≥ " + GOAL + ", ≥ " + WORST_ROUND_GOAL);
        Map<String, String> legend = new LinkedHashMap<>();
        for (Lab lab : new Labs(TestServers.backends()).all()) {
            if (!lab.services().contains(Service.POSTGRES)) {
                continue;
            }
            for (Strategy strategy : lab.strategies()) {
                String name = lab.id() + "/" + strategy.id();
                if (!name.startsWith(only)) {
                    continue;
                }
                RawTwin twin = TWINS.get(name);
                if (twin == null) {
                    System.out.printf("%-32s no raw twin: %s%n", name,
                            NO_TWIN.getOrDefault(lab.id(), "none written for it: not measured"));
                    continue;
                }
                legend.put(name, twin.sends() + (twin.switches().isEmpty() ? ""
                        : " [both sides: " + new TreeMap<>(twin.switches()) + "]"));
                measure(postgres, lab, strategy, twin, name, workers, rounds, seconds);
            }
        }
        System.out.println("what the raw client sends per operation, as a plain program would:");
        legend.forEach((name, sends) -> System.out.printf("  %-32s %s%n", name, sends));
    }

    private static void measure(Postgres postgres, Lab lab, Strategy strategy, RawTwin twin, String name,
                                int workers, int rounds, double seconds) throws Exception {
        SwitchValues switches = switches(lab, twin);
        String statements = statementsPerOp(postgres, lab, strategy, twin, switches);

        // Warm-up, which also sizes the rounds: a short raw round to guess the rate (start-up
        // weighs on it), then one of each at the guess, which sizes the rest.
        int ops = opsFor(seconds, RawTwin.time(postgres, twin, workers, SIZING_OPS), workers);
        racelab(lab, strategy, switches, workers, ops, false);
        racelab(lab, strategy, switches, workers, ops, true);
        ops = opsFor(seconds, RawTwin.time(postgres, twin, workers, ops), workers);

        int n = ops;
        List<Side> sides = List.of(() -> racelab(lab, strategy, switches, workers, n, false),
                () -> racelab(lab, strategy, switches, workers, n, true),
                () -> RawTwin.time(postgres, twin, workers, n),
                () -> RawTwin.time(postgres, twin, workers, n));
        double[][] rates = new double[sides.size()][rounds];
        double[][] cpu = new double[sides.size()][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < sides.size(); k++) {
                int side = (round + k) % sides.size();
                settle(postgres);
                Sample sample = sample((long) workers * ops, sides.get(side));
                rates[side][round] = sample.opsPerSec();
                cpu[side][round] = sample.jvmMicrosPerOp();
            }
        }
        double[] ratios = new double[rounds];
        double[] observed = new double[rounds];
        double[] itself = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            ratios[round] = rates[0][round] / rates[2][round];
            observed[round] = rates[1][round] / rates[2][round];
            itself[round] = rates[3][round] / rates[2][round];
        }
        double ratio = median(ratios);
        double worst = Arrays.stream(ratios).min().orElseThrow();
        double[] interval = medianInterval(ratios);
        System.out.printf("%-32s %10d %13s %19s %,11.0f %,11.0f %6.3f %13s %6.3f %8.3f %6.3f %6.3f %6.3f %5.1f  %s%n",
                name, ops,
                statements, String.format("%.0f | %.0f | %.0f", median(cpu[0]), median(cpu[1]), median(cpu[2])),
                median(rates[0]), median(rates[2]), ratio, String.format("%.3f–%.3f", interval[0], interval[1]), worst,
                median(observed), Arrays.stream(observed).min().orElseThrow(), median(itself),
                Arrays.stream(itself).min().orElseThrow(), JVM.getSystemLoadAverage(),
                ratio >= GOAL && worst >= WORST_ROUND_GOAL ? "yes" : ratio >= GOAL ? "median only" : "NO");
    }

    /** The lab's switches as the twin runs: the lab's defaults but where the twin says otherwise. */
    private static SwitchValues switches(Lab lab, RawTwin twin) {
        SwitchValues values = SwitchValues.DEFAULTS;
        for (Map.Entry<String, String> set : twin.switches().entrySet()) {
            Switch<?> sw = lab.profile().switchNamed(set.getKey()).orElseThrow(
                    () -> new IllegalArgumentException(lab.id() + " has no switch " + set.getKey()));
            values = values.parse(sw, set.getValue());
        }
        return values;
    }

    /**
     * One RaceLab run; its workers' ops/s. No gate delays: the lab's preset ones (the counter's
     * before-read and after-read sleeps) are not in the raw twin, and would be measured instead of
     * the instrumentation. A verdict of the lab's own is fine (a broken strategy's STUCK, its locks
     * left behind, included) as long as every operation was done.
     */
    private static double racelab(Lab lab, Strategy strategy, SwitchValues switches, int workers, int ops,
                                  boolean observe) throws Exception {
        Run run = new Run(lab, lab.defaults().withStrategy(strategy.id()).withWorkers(workers).withOps(ops)
                .withGates(GatePlan.NONE).withSwitches(switches).withTimeout(Duration.ofSeconds(60))
                .withObserve(observe), Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(RUN_WAIT);
        Number done = outcome.metrics().get("opsCompleted");
        if (outcome.verdict() == Verdict.ERROR || done == null || done.longValue() != (long) workers * ops) {
            throw new IllegalStateException(lab.id() + "/" + strategy.id() + ": " + outcome.banner());
        }
        return outcome.metrics().get("opsPerSec").doubleValue();
    }

    /** "RaceLab | raw" statements per operation with the lab's fewest workers, as pgjdbc logs them on the way out. */
    private static String statementsPerOp(Postgres postgres, Lab lab, Strategy strategy, RawTwin twin,
                                          SwitchValues switches) throws Exception {
        int workers = lab.profile().crew().fewest();
        try (SentStatements counter = new SentStatements()) {
            racelab(lab, strategy, switches, workers, COUNTING_OPS, false);
            RawTwin.time(postgres, twin, workers, COUNTING_OPS);
            long ours = 0;
            long theirs = 0;
            for (int i = 0; i < workers; i++) {
                ours += counter.sentBy(lab.workerName(i));
                theirs += counter.sentBy("raw-" + (i + 1));
            }
            return format(ours, workers) + " | " + format(theirs, workers);
        }
    }

    private static String format(long statements, int workers) {
        double perOp = (double) statements / COUNTING_OPS / workers;
        return perOp == Math.rint(perOp) ? String.valueOf((long) perOp) : String.format("%.2f", perOp);
    }

    /** One side of a round: runs it and answers its ops/s. */
    @FunctionalInterface
    private interface Side {
        double run() throws Exception;
    }

    /** A side's round: its rate, and the CPU this JVM spent on it (set-up included) per operation. */
    private record Sample(double opsPerSec, double jvmMicrosPerOp) {
    }

    private static Sample sample(long operations, Side side) throws Exception {
        long cpu = JVM.getProcessCpuTime();
        double rate = side.run();
        return new Sample(rate, (JVM.getProcessCpuTime() - cpu) / 1e3 / operations);
    }

    /**
     * Before each side: RaceLab's tables vacuumed and the server's dirty pages written (where the
     * login may), the JVM's garbage collected, a moment's rest: no side pays for the dead rows,
     * pages or garbage the other left, which otherwise swing a round by a tenth either way.
     */
    private static void settle(Postgres postgres) throws Exception {
        try (Connection c = postgres.connect("bench-settle"); Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c "
                    + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'racelab' AND c.relkind = 'r'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            if (!tables.isEmpty()) {
                s.execute("VACUUM " + String.join(", ", tables));
            }
            try {
                s.execute("CHECKPOINT");
            } catch (SQLException notPermitted) {
                // An external server may not let this login checkpoint; vacuuming is what matters most.
            }
        }
        System.gc();
        Thread.sleep(SETTLE_MILLIS);
    }

    /** The heap's sizes, "fixed at 2048 MB" when it starts at its maximum (as {@code scripts/bench} runs it). */
    private static String heap() {
        java.lang.management.MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long init = heap.getInit() >> 20;
        long max = heap.getMax() >> 20;
        return init >= max ? "fixed at " + max + " MB" : init + " MB growing to " + max + " MB";
    }

    private static int opsFor(double seconds, double rate, int workers) {
        return (int) Math.max(SIZING_OPS, Math.round(seconds * rate / workers));
    }

    /**
     * Where the median of {@code ratios} would fall, 95 times in 100, had the rounds come out
     * differently: the 2.5th and 97.5th percentiles of the medians of 2,000 resamplings (with a fixed
     * seed, so the figure does not move between printings of the same rounds).
     */
    private static double[] medianInterval(double[] ratios) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        double[] medians = new double[2_000];
        double[] resample = new double[ratios.length];
        for (int b = 0; b < medians.length; b++) {
            for (int i = 0; i < resample.length; i++) {
                resample[i] = ratios[random.nextInt(ratios.length)];
            }
            medians[b] = median(resample);
        }
        Arrays.sort(medians);
        return new double[] {medians[(int) (medians.length * 0.025)], medians[(int) (medians.length * 0.975) - 1]};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
