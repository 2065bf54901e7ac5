package dev.racelab.bench;

import dev.racelab.backend.Backends;
import dev.racelab.backend.Postgres;
import dev.racelab.engine.Clock;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.explore.Exploration;
import dev.racelab.engine.explore.Explorer;
import dev.racelab.engine.explore.Found;
import dev.racelab.engine.explore.Method;
import dev.racelab.engine.lab.Lab;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.SpecReader;
import dev.racelab.isolation.run.IsolationRun;
import dev.racelab.isolation.run.SpecRunner;
import dev.racelab.isolation.run.SpecSandbox;
import dev.racelab.isolation.run.Transcript;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How fast {@code racelab explore} runs schedules, per lab, on the servers the tests use (the
 * embedded ones unless {@code RACELAB_PG_URL} / {@code RACELAB_REDIS_URL} say otherwise); and,
 * round by round in the same run, alternating who goes first, the counter's two clients × one
 * increment (every interleaving: 6 schedules) beside its peer: PostgreSQL's isolation runner
 * ({@code racelab isolation}, isolationtester's rules) running the permutations of RaceLab's
 * teaching spec of the same lost update, each on its sessions, in one sandbox made once a round.
 * Both sides start each schedule or permutation from fresh rows; neither counts its start-up.
 *
 * <p>Run with {@code scripts/bench explore [rounds] [seconds per lab]}.
 */
public final class ExploreBenchmark {

    private static final Path SPEC = Path.of("src/main/resources/dev/racelab/isolation/teaching/"
            + "lost-update-read-then-write-vs-increment.spec");

    private record Case(String lab, String strategy, int workers, Method method, String... sets) {
    }

    private static final List<Case> LABS = List.of(
            new Case("counter", "read-modify-write", 2, Method.ALL),
            new Case("counter", "select-for-update", 2, Method.ALL),
            new Case("fencing", "blind-write", 2, Method.BOUNDED),
            new Case("lease-fencing", "lease-only", 2, Method.BOUNDED),
            new Case("job-queue", "select-then-update", 3, Method.BOUNDED, "batch=1"),
            new Case("advisory-lock", "session-pooled", 2, Method.BOUNDED, "work-ms=0"),
            new Case("isolation", "by-hand", 3, Method.BOUNDED),
            new Case("redis-primitives", "article-mutex", 3, Method.BOUNDED),
            new Case("readers-writers", "reader-preference", 2, Method.BOUNDED),
            new Case("dining-philosophers", "naive", 3, Method.BOUNDED));

    private ExploreBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Backends backends = TestServers.backends();
        Postgres postgres = backends.postgres();
        postgres.keepSessions(true);
        Labs labs = new Labs(backends);
        System.out.printf("explore: schedules per second, %d cores, %s%n", Runtime.getRuntime().availableProcessors(),
                postgres.describe());
        System.out.printf("%-19s %-19s %7s %6s %9s %8s %10s %6s%n", "lab", "strategy", "workers", "method", "schedules",
                "failing", "sched/s", "load");
        for (Case c : LABS) {
            Lab lab = labs.find(c.lab).orElseThrow();
            Exploration found = explore(lab, c, 1_000_000, seconds);
            System.out.printf("%-19s %-19s %7d %6s %9d %8d %10.1f %6.2f%n", c.lab, c.strategy, c.workers, c.method.id(),
                    found.schedules(), found.failingCount(), found.schedulesPerSecond(), MachineLoad.oneMinute());
        }
        System.out.println();
        System.out.println("the counter's 2 × 1 (all 6 schedules, 10 times a round) beside racelab isolation's runner: "
                + "the 6 permutations of " + SPEC.getFileName() + ", 10 times a round, in one sandbox a round");
        System.out.printf("%5s %14s %16s %7s %6s%n", "round", "explore sch/s", "isolation perm/s", "ratio", "load");
        Lab counter = labs.find("counter").orElseThrow();
        Case lost = LABS.get(0);
        Spec spec = SpecReader.read(SPEC);
        double[] ratios = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            double ours;
            double theirs;
            if (round % 2 == 0) {
                ours = exploreRate(counter, lost);
                theirs = isolationRate(postgres, spec);
            } else {
                theirs = isolationRate(postgres, spec);
                ours = exploreRate(counter, lost);
            }
            ratios[round] = ours / theirs;
            System.out.printf("%5d %14.1f %16.1f %7.2f %6.2f%n", round + 1, ours, theirs, ratios[round],
                    MachineLoad.oneMinute());
        }
        java.util.Arrays.sort(ratios);
        System.out.printf("median ratio (explore / isolation runner): %.2f%n", ratios[rounds / 2]);
        postgres.keepSessions(false);
        System.exit(0);
    }

    private static Exploration explore(Lab lab, Case c, long schedules, int seconds) throws InterruptedException {
        RunSpec spec = lab.defaults().withStrategy(c.strategy).withWorkers(c.workers).withOps(lab.exploredOps());
        for (String set : c.sets) {
            String[] kv = set.split("=", 2);
            spec = spec.withSwitches(spec.switches().parse(lab.profile().switchNamed(kv[0]).orElseThrow(), kv[1]));
        }
        Explorer explorer = new Explorer(lab, spec, Clock.system(), run -> { });
        return explorer.explore(new Explorer.Settings(c.method, 2, 3, 1, schedules, Duration.ofSeconds(seconds),
                Duration.ofSeconds(seconds)), new Explorer.Listener() {
                    @Override
                    public void ran(Found schedule, RunRecord record) {
                    }
                });
    }

    /** The counter's whole 2 × 1 space, ten times: schedules per second, shrinking not counted. */
    private static double exploreRate(Lab counter, Case lost) throws InterruptedException {
        int schedules = 0;
        long nanos = 0;
        for (int i = 0; i < 10; i++) {
            Exploration found = explore(counter, lost, 1_000, 60);
            schedules += found.schedules();
            nanos += found.elapsedNanos();
        }
        return schedules * 1e9 / nanos;
    }

    /** The spec's permutations, ten times, in one sandbox: permutations per second, the sandbox not counted. */
    private static double isolationRate(Postgres postgres, Spec spec) throws Exception {
        SpecSandbox sandbox = SpecSandbox.open(postgres, spec, ServerReach.of(spec), SpecSandbox.Access.CONFINED);
        try {
            long start = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                new IsolationRun(postgres, spec, new Transcript(line -> { }), SpecRunner.Options.DEFAULTS)
                        .runIn(sandbox, List.of());
            }
            int permutations = 0;
            for (Object p : spec.permutations()) {
                permutations++;
            }
            return 10.0 * permutations * 1e9 / (System.nanoTime() - start);
        } finally {
            sandbox.dropDatabase();
            sandbox.release();
        }
    }
}
