package dev.racelab.bench;

import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.isolation.SpecReader;
import dev.racelab.isolation.run.IsolationRun;
import dev.racelab.support.TestServers;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code racelab isolation} against PostgreSQL's own {@code pg_isolation_regress} (which runs
 * {@code isolationtester} once per spec) over the same schedule, on the same server, round by
 * round, alternating who goes first, with the machine's load: the wall time of each (RaceLab as a
 * user runs it, {@code scripts/racelab isolation SPEC… --out DIR}, JVM start included), and how
 * many of RaceLab's transcripts are byte-identical to the peer's output of the same round.
 *
 * <p>The peers come with the embedded PostgreSQL 17 package ({@code
 * lib/postgresql/pgxs/src/test/isolation}, run with the package's {@code lib/} on the library
 * path); the schedule and specs from {@code ../shared/isolation/pg17} (or the folder given). For
 * another server, set {@code RACELAB_ISOLATION_PEERS} to a folder holding both peers built for
 * it. {@code pg_isolation_regress} makes its database with {@code psql} from the PATH.
 *
 * <p>Run with {@code scripts/bench isolation [rounds] [suite folder] [racelab's --jobs]}.
 */
public final class IsolationBenchmark {

    private IsolationBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Path suite = Path.of(args.length > 1 ? args[1] : "../shared/isolation/pg17").toAbsolutePath().normalize();
        String jobs = args.length > 2 ? args[2] : null;
        Postgres postgres = TestServers.postgres();
        Path peers = peers().orElse(null);
        if (peers == null) {
            System.out.println("isolation: no pg_isolation_regress found (set RACELAB_ISOLATION_PEERS): not measured");
            System.exit(0);
        }
        List<String> tests = Files.readAllLines(suite.resolve("isolation_schedule")).stream()
                .filter(line -> line.startsWith("test:")).flatMap(line -> Arrays.stream(line.substring(5).trim()
                        .split("\\s+"))).toList();
        // What RaceLab refuses to run (a statement it cannot confine to a scratch database) neither side runs.
        List<String> refused = new ArrayList<>();
        List<String> runnable = new ArrayList<>();
        for (String test : tests) {
            Path file = suite.resolve("specs").resolve(test + ".spec");
            (IsolationRun.refusal(SpecReader.read(file)).isPresent() ? refused : runnable).add(test);
        }
        tests = runnable;
        Path schedule = Files.createTempFile("racelab-isolation-schedule-", "");
        Files.write(schedule, tests.stream().map(test -> "test: " + test).toList());
        Path root = Path.of(System.getProperty("user.dir"));
        System.out.printf("isolation: %d specs of %s, racelab isolation (scripts/racelab, --out"
                        + (jobs == null ? "" : " --jobs " + jobs) + ") beside "
                        + "pg_isolation_regress (%s), %d rounds alternating who goes first; %d cores; %s%n",
                tests.size(), suite, peers, rounds, Runtime.getRuntime().availableProcessors(), postgres.describe());
        if (!refused.isEmpty()) {
            System.out.println("left out, as RaceLab refuses them (they reach beyond their database): " + refused);
        }
        System.out.printf("%5s %10s %10s %7s %10s %6s%n", "round", "RaceLab s", "peer s", "ratio", "identical", "load");
        double[] ratios = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            Path work = Files.createTempDirectory("racelab-isolation-bench-");
            try {
                boolean oursFirst = round % 2 == 0;
                double ours = 0;
                double theirs = 0;
                if (oursFirst) {
                    ours = racelab(root, postgres.address(), suite, tests, work.resolve("racelab"), jobs);
                    theirs = peer(peers, postgres.address(), suite, schedule, work.resolve("peer"));
                } else {
                    theirs = peer(peers, postgres.address(), suite, schedule, work.resolve("peer"));
                    ours = racelab(root, postgres.address(), suite, tests, work.resolve("racelab"), jobs);
                }
                int identical = 0;
                List<String> differing = new ArrayList<>();
                for (String test : tests) {
                    Path mine = work.resolve("racelab").resolve(test + ".out");
                    Path peer = work.resolve("peer/results").resolve(test + ".out");
                    if (Files.exists(mine) && Files.exists(peer)
                            && Arrays.equals(Files.readAllBytes(mine), Files.readAllBytes(peer))) {
                        identical++;
                    } else {
                        differing.add(test);
                    }
                }
                ratios[round] = ours / theirs;
                System.out.printf("%5d %10.1f %10.1f %7.2f %6d/%-3d %6.1f%s%n", round + 1, ours, theirs, ours / theirs,
                        identical, tests.size(), load(), differing.isEmpty() ? "" : "  differ: " + differing);
            } finally {
                delete(work);
            }
        }
        Arrays.sort(ratios);
        System.out.printf("median ratio %.2f (goal ≤ 0.80)%n", ratios[rounds / 2]);
        Files.deleteIfExists(schedule);
        System.exit(0);
    }

    /** The seconds {@code scripts/racelab isolation} takes over {@code tests}, writing into {@code out}. */
    private static double racelab(Path root, PgAddress server, Path suite, List<String> tests, Path out,
                                  String jobs) throws Exception {
        List<String> command = new ArrayList<>(List.of(root.resolve("scripts/racelab").toString(), "isolation"));
        for (String test : tests) {
            command.add(suite.resolve("specs").resolve(test + ".spec").toString());
        }
        command.addAll(List.of("--out", out.toString(), "--pg-url", server.secretUrl()));
        if (jobs != null) {
            command.addAll(List.of("--jobs", jobs));
        }
        return timed(new ProcessBuilder(command), "racelab isolation");
    }

    /** The seconds {@code pg_isolation_regress} takes over the schedule, results under {@code out}. */
    private static double peer(Path peers, PgAddress server, Path suite, Path schedule, Path out) throws Exception {
        Files.createDirectories(out);
        ProcessBuilder builder = new ProcessBuilder(peers.resolve("pg_isolation_regress").toString(),
                "--inputdir=" + suite, "--outputdir=" + out, "--schedule=" + schedule,
                "--host=" + server.host(), "--port=" + server.port(), "--user=" + server.user(),
                "--dbname=isolation_regression", "--bindir=");
        Path lib = peers.getParent().getParent().getParent().getParent().getParent();
        builder.environment().put("LD_LIBRARY_PATH", lib.toString());
        String password = server.properties().getProperty("password");
        if (password != null) {
            builder.environment().put("PGPASSWORD", password);
        }
        // The peer says "failed" for a test whose output differs from the expected file: that is not the bench's concern.
        return timedAllowingFailures(builder);
    }

    private static double timed(ProcessBuilder builder, String what) throws Exception {
        Path log = Files.createTempFile("racelab-bench-", ".log");
        try {
            builder.redirectErrorStream(true).redirectOutput(log.toFile());
            long start = System.nanoTime();
            Process process = builder.start();
            if (!process.waitFor(30, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(what + " did not end in 30 minutes");
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (process.exitValue() == 2) {
                throw new IllegalStateException(what + " refused its arguments: " + Files.readString(log));
            }
            if (process.exitValue() != 0) {
                // A spec that stopped part-way (exit 1) still wrote its transcript so far: compared like the rest.
                Files.readAllLines(log).stream().filter(line -> line.startsWith("racelab: "))
                        .forEach(line -> System.out.println("      " + line));
            }
            return seconds;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static double timedAllowingFailures(ProcessBuilder builder) throws Exception {
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        long start = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(30, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("pg_isolation_regress did not end in 30 minutes");
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** The folder of the peers: RACELAB_ISOLATION_PEERS, or the embedded package's. */
    private static Optional<Path> peers() throws IOException {
        String named = System.getenv("RACELAB_ISOLATION_PEERS");
        if (named != null) {
            return Optional.of(Path.of(named));
        }
        Path bin = DataHome.resolve(System.getenv()).resolve("postgres/bin");
        if (!Files.isDirectory(bin)) {
            return Optional.empty();
        }
        try (Stream<Path> unpacked = Files.list(bin)) {
            return unpacked.map(p -> p.resolve("lib/postgresql/pgxs/src/test/isolation"))
                    .filter(p -> Files.isExecutable(p.resolve("pg_isolation_regress"))).findFirst();
        }
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
