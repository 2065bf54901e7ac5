package dev.racelab.soak;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.RedisAddress;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The soak: many short runs of a packaged RaceLab, each a child process {@code run LAB … --record
 * FILE --timeout T --json}, across every lab, on the child's own embedded servers or on the
 * machine's, each with a fault drawn from a seed (none, SIGTERM to RaceLab, a server killed, a
 * server frozen, a PostgreSQL backend killed) that lands while the run's workers are at work, or
 * (start-signal) SIGTERM or SIGINT while the child sets up or starts its embedded servers, in a
 * fresh data home for some runs so that the first set-up is signalled too.
 *
 * <p>A run's bound: {@link #START_UP} until its workers are seen on their server (the soak asks the
 * server for sessions named after them), then the run's timeout, {@link #MARGIN} and a generous
 * guess at the workers' own time ({@link Plan#workMillis}); once a fault is done, the fault's
 * moment plus the timeout and the margin (plus the signal grace after a SIGTERM).
 *
 * <p>Every run must: end within its bound (a run the soak has to kill is "hung", never a success);
 * end with a named cause (no fault: exit 0 and a verdict; a signal: the summary says it was
 * interrupted and so does the recording, exit 128 + the signal; a server fault: exit 1 and a line
 * naming the server, unless the fault came after the workers were done and the run ended 0 with a
 * verdict, "fault too late"); leave a recording RaceLab reads back (none after a signal that came
 * before any run); leave nothing beside the recording's target (no partial file); leave no process
 * of its own running ten seconds after it exited. A signal during start-up must end the child
 * within {@link #START_SIGNAL_BOUND}. On the machine's servers, nothing outside schema {@code racelab} and keys
 * {@code racelab:} may change (see {@link External}).
 *
 * <p>Run with {@code scripts/soak [runs] [seed]}; the same seed draws the same runs. Prints a line
 * per run, then the counts, and writes each failure with what it takes to reproduce it to
 * {@code target/soak/failures.txt}. Exits 1 if anything failed.
 */
public final class Soak {

    /** Longest a child may take from its start until its workers are seen on their server. */
    private static final Duration START_UP = Duration.ofSeconds(90);
    /** Beyond the run's timeout, for the silent-server check, stopping the workers and the servers. */
    private static final Duration MARGIN = Duration.ofSeconds(15);
    /** What a signalled RaceLab may take to stop its run and write what it has (Interruption.GRACE_SECONDS). */
    private static final Duration SIGNAL_GRACE = Duration.ofSeconds(20);
    /**
     * What a RaceLab signalled while its servers start may take to end: it calls the start off and
     * sums up no run in a second or two; this is room for a very busy machine, far from the 23 s it
     * took when it waited for the start.
     */
    private static final Duration START_SIGNAL_BOUND = Duration.ofSeconds(10);
    /** How long after a child exits its processes must be gone. */
    static final Duration PROCESS_GRACE = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 20;
    /** Listing processes costs a pass over /proc: every tenth poll is often enough for ones that stay. */
    private static final int TRACK_EVERY = 10;

    private static final String DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test";
    private static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";


    private final Path jar;
    private final Path work;
    private final Path home;
    private final Labs labs;
    private final External external;
    private final boolean useExternal;
    private final long seed;
    private volatile Process current;
    private volatile RunServers currentServers;

    private Soak(Path jar, Path work, Path home, Labs labs, External external, boolean useExternal, long seed) {
        this.jar = jar;
        this.work = work;
        this.home = home;
        this.labs = labs;
        this.external = external;
        this.useExternal = useExternal;
        this.seed = seed;
    }

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : System.nanoTime() % 1_000_000;
        Logger.getLogger("org.postgresql").setLevel(Level.OFF);

        Path root = Path.of("").toAbsolutePath();
        Path jar = root.resolve("target/racelab.jar");
        Path work = root.resolve("target/soak");
        Path home = root.resolve("target/soak-home");
        deleteTree(work);
        Files.createDirectories(work);
        Files.createDirectories(home);

        Map<String, String> env = System.getenv();
        External external = new External(PgAddress.parse(env.getOrDefault(BackendSettings.PG_ENV, DEFAULT_PG)),
                RedisAddress.parse(env.getOrDefault(BackendSettings.REDIS_ENV, DEFAULT_REDIS)));
        String unreachable = external.unreachable();
        boolean useExternal = unreachable == null;

        try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            Soak soak = new Soak(jar, work, home, labs, external, useExternal, seed);
            System.out.printf("soak: %d runs, seed %d, labs %s; servers: embedded (RACELAB_HOME=%s)%s%n", runs, seed,
                    labs.ids(), home, useExternal ? " and external (" + external.postgres().describe() + ", "
                            + external.redis().describe() + ", each through a relay)"
                            : "; external ones not used: " + unreachable);
            Runtime.getRuntime().addShutdownHook(new Thread(soak::abandon, "soak-shutdown"));
            System.exit(soak.soak(runs));
        }
    }

    private int soak(int runs) throws Exception {
        long start = System.nanoTime();
        List<String> namespaceChanges = new ArrayList<>();
        if (useExternal) {
            external.plantSentinels();
        }
        List<Report> reports = new ArrayList<>();
        try {
            // The replication labs run on topologies of RaceLab's own, which the soak's faults do not know yet.
            List<Lab> all = labs.all().stream().filter(l -> l.services().stream().allMatch(dev.racelab.engine.Service::shared)).toList();
            for (int n = 1; n <= runs; n++) {
                Plan plan = Plan.draw(seed, n, all, useExternal);
                Report report = run(plan);
                reports.add(report);
                System.out.printf("%4d/%d %-62s → %-16s exit %-4s %5.1f s%s%n", n, runs, plan.describe(),
                        report.result().label, report.exit() == null ? "-" : report.exit(), report.exitSeconds(),
                        report.result().failure() ? "  " + String.join("; ", report.problems())
                                : report.note() == null ? "" : "  (" + report.note() + ")");
            }
        } finally {
            if (useExternal) {
                namespaceChanges.addAll(external.changesOutsideRacelab());
                external.removeSentinels();
            }
        }
        List<String> strays = strayProcesses();
        double wall = (System.nanoTime() - start) / 1e9;
        return new Tables(labs.all(), useExternal, home, work, seed).summarize(reports, namespaceChanges, strays, wall);
    }

    /** Runs one child to its end and judges it. */
    private Report run(Plan plan) throws Exception {
        String name = String.format("run-%03d", plan.number());
        Path recording = work.resolve(name + ".racelab");
        Path out = work.resolve(name + ".out");
        Path err = work.resolve(name + ".err");
        Random random = new Random(plan.raceSeed());
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Processes seen = new Processes();
        // A fresh data home makes the start a first set-up (unpack, initdb) for the signal to land in.
        Path runHome = plan.freshHome() ? work.resolve(name + ".home") : home;
        try (RunServers servers = new RunServers(plan, runHome, external, started)) {
            currentServers = servers;
            List<String> command = plan.command(jar, recording, servers.urls());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().remove(BackendSettings.PG_ENV);
            builder.environment().remove(BackendSettings.REDIS_ENV);
            builder.environment().put("RACELAB_HOME", runHome.toString());
            Process child = builder.start();
            current = child;
            try {
                Report report = watch(plan, child, servers, seen, random, started, t0, recording, out, err, command,
                        runHome);
                if (plan.freshHome() && !report.result().failure()) {
                    deleteTree(runHome);
                }
                return report;
            } finally {
                if (child.isAlive()) {
                    // The soak itself failed: the child and its servers must not outlive the run.
                    servers.close();
                    child.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
                    child.destroyForcibly();
                }
                current = null;
                currentServers = null;
            }
        }
    }

    /** Follows a started child to its end: spots it under way, inflicts its fault, bounds it; then judges it. */
    private Report watch(Plan plan, Process child, RunServers servers, Processes seen, Random random, Instant started,
                         long t0, Path recording, Path out, Path err, List<String> command, Path runHome)
            throws Exception {
        seen.add(child.toHandle());
        long startSaid = -1;

        long timeout = TimeUnit.SECONDS.toNanos(plan.timeoutSeconds());
        long deadline = t0 + START_UP.toNanos() + timeout + MARGIN.toNanos();
        long underWay = -1;
        long faultAt = -1;
        Instant faultWall = null;
        String inflicted = null;
        boolean hung = false;
        int polls = 0;
        long printed = -1;
        while (!child.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            long now = System.nanoTime();
            if (now > deadline) {
                hung = true;
                break;
            }
            if (printed < 0 && Files.size(out) > 0) {
                printed = now;
            }
            if (++polls % TRACK_EVERY == 0 || !servers.found()) {
                servers.look(child.toHandle(), seen);
            }
            if (underWay < 0 && servers.underWay()) {
                underWay = now;
                deadline = now + timeout + MARGIN.toNanos() + TimeUnit.MILLISECONDS.toNanos(plan.workMillis());
            }
            if (plan.fault() == Fault.START_SIGNAL && faultAt < 0) {
                if (startSaid < 0 && startingSaid(err)) {
                    startSaid = now;
                }
                if (startSaid >= 0 && now - startSaid >= TimeUnit.MILLISECONDS.toNanos(plan.faultDelayMillis())) {
                    faultAt = now;
                    faultWall = Instant.now();
                    inflicted = signal(child, plan.signal()) + (underWay < 0 ? " while its servers started"
                            : " (its workers had started)");
                    deadline = underWay < 0 ? now + START_SIGNAL_BOUND.toNanos()
                            : now + timeout + MARGIN.toNanos() + SIGNAL_GRACE.toNanos();
                }
            }
            if (underWay >= 0 && faultAt < 0 && plan.fault() != Fault.NONE && plan.fault() != Fault.START_SIGNAL
                    && now - underWay >= TimeUnit.MILLISECONDS.toNanos(plan.faultDelayMillis())) {
                faultAt = now;
                faultWall = Instant.now();
                if (plan.fault() == Fault.SIGTERM) {
                    child.destroy();
                    inflicted = "SIGTERM to RaceLab (pid " + child.pid() + ")";
                } else {
                    try {
                        inflicted = servers.inflict(random).orElse(null);
                    } catch (Exception e) {
                        System.err.println("soak: run " + plan.number() + ": could not inflict "
                                + plan.fault().label() + ": " + e.getMessage());
                    }
                }
                if (inflicted != null) {
                    // From the fault on, the workers cannot get far: a dead or silent server stops
                    // them, a signal stops the run. So the bound is counted from the fault alone.
                    deadline = now + timeout + MARGIN.toNanos()
                            + (plan.fault() == Fault.SIGTERM ? SIGNAL_GRACE.toNanos() : 0);
                }
            }
        }
        long ended = System.nanoTime();
        if (printed < 0 && Files.size(out) > 0) {
            printed = ended;
        }
        String note = null;
        if (plan.fault() == Fault.START_SIGNAL && inflicted == null) {
            note = startSaid < 0 ? "fault not done: no server start was said" : "fault not done: it ended first";
        } else if (plan.fault() != Fault.NONE && inflicted == null) {
            note = underWay < 0 ? "fault not done: the workers were never seen at work"
                    : faultAt < 0 ? "fault not done: the run ended before its moment"
                    : "fault not done: nothing left to inflict it on";
        }
        if (hung) {
            servers.thaw();
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
        Integer exit = child.isAlive() ? null : child.exitValue();
        servers.look(child.toHandle(), seen);
        servers.close();
        seen.add(homeProcesses(runHome, started));
        List<String> left = seen.awaitGone(PROCESS_GRACE);
        List<String> partials = leftBeside(recording);

        Report report = new Judge(labs).judge(plan, hung, exit, inflicted, note, faultWall, left, partials, recording,
                out, err, command,
                seconds(t0, underWay), seconds(t0, faultAt), seconds(t0, printed), (ended - t0) / 1e9,
                (deadline - t0) / 1e9);
        if (!report.result().failure()) {
            Files.deleteIfExists(recording);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
        return report;
    }

    private static double seconds(long t0, long at) {
        return at < 0 ? -1 : (at - t0) / 1e9;
    }

    /** Whether the child said it sets up or starts an embedded server (on standard error, as it does). */
    private static boolean startingSaid(Path err) throws IOException {
        String said = Files.readString(err, StandardCharsets.UTF_8);
        return said.contains("Setting up embedded") || said.contains("Starting embedded");
    }

    /** Sends SIG{@code name} to the child (a Ctrl-C is SIGINT); says what was done. */
    private static String signal(Process child, String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(child.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + child.pid() + " failed");
        }
        return "SIG" + name + " to RaceLab (pid " + child.pid() + ")";
    }

    /**
     * What the child left beside its recording's target: a partial file ({@code .NAME.<random>.part},
     * where the recording is written before it is moved into place whole) or any other file named
     * after the target.
     */
    private List<String> leftBeside(Path recording) throws IOException {
        String target = recording.getFileName().toString();
        try (Stream<Path> files = Files.list(work)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("." + target) || n.startsWith(target) && !n.equals(target))
                    .sorted().toList();
        }
    }

    /** Processes started since {@code since} whose command line names the soak's home: the child's servers. */
    private Stream<ProcessHandle> homeProcesses(Instant since) {
        return homeProcesses(home, since);
    }

    /** Processes started since {@code since} whose command line names {@code home}: a child's servers. */
    private static Stream<ProcessHandle> homeProcesses(Path home, Instant since) {
        String path = home.toString();
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().startInstant().map(s -> !s.isBefore(since.minusSeconds(1))).orElse(false))
                .filter(p -> p.info().commandLine().map(c -> c.contains(path)).orElse(false));
    }

    /** After every run: anything still running from the soak's home (none should be). */
    private List<String> strayProcesses() throws InterruptedException {
        Processes strays = new Processes();
        strays.add(homeProcesses(Instant.EPOCH));
        return strays.awaitGone(Duration.ZERO);
    }

    /** The soak itself is stopped (Ctrl-C): the run in progress and its servers must not outlive it. */
    private void abandon() {
        RunServers servers = currentServers;
        if (servers != null) {
            servers.close();
        }
        Process child = current;
        if (child != null && child.isAlive()) {
            child.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            child.destroyForcibly();
        }
        try {
            strayProcesses();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
