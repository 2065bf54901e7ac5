package dev.racelab.soak;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.RedisAddress;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Lab;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Service;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The soak: many short runs of a packaged RaceLab, each a child process {@code run LAB … --record
 * FILE --timeout T --json}, across every lab, on the child's own embedded servers or on the
 * machine's, each with a fault drawn from a seed (none, SIGTERM to RaceLab, a server killed, a
 * server frozen, a PostgreSQL backend killed) that lands while the run's workers are at work.
 *
 * <p>A run's bound: {@link #START_UP} until its workers are seen on their server (the soak asks the
 * server for sessions named after them), then the run's timeout, {@link #MARGIN} and a generous
 * guess at the workers' own time ({@link Plan#workMillis}); once a fault is done, the fault's
 * moment plus the timeout and the margin (plus the signal grace after a SIGTERM).
 *
 * <p>Every run must: end within its bound (a run the soak has to kill is "hung", never a success);
 * end with a named cause (no fault: exit 0 and a verdict; SIGTERM: the summary says it was
 * interrupted and so does the recording; a server fault: exit 1 and a line naming the server,
 * unless the fault came after the workers were done and the run ended 0 with a verdict, "fault too
 * late"); leave a recording RaceLab reads back; leave no process of its own running ten seconds
 * after it exited. On the machine's servers, nothing outside schema {@code racelab} and keys
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
    /** How long after a child exits its processes must be gone. */
    private static final Duration PROCESS_GRACE = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 20;
    /** Listing processes costs a pass over /proc: every tenth poll is often enough for ones that stay. */
    private static final int TRACK_EVERY = 10;

    private static final String DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test";
    private static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";

    /** What became of a run, best first; every class from {@link #HUNG} on is a failure. */
    enum Result {
        OK("ok-as-expected"),
        FAULT_TOO_LATE("fault-too-late"),
        HUNG("hung"),
        WRONG_EXIT("wrong exit"),
        UNNAMED_CAUSE("unnamed cause"),
        RECORDING("recording invalid/missing"),
        PROCESS_LEFT("process left");

        final String label;

        Result(String label) {
            this.label = label;
        }

        boolean failure() {
            return ordinal() >= HUNG.ordinal();
        }
    }

    /** One run as it went: the plan, what was done and seen, the result and every problem found. */
    private record Report(Plan plan, Result result, List<String> problems, String inflicted, String note, Integer exit,
                          double underWaySeconds, double faultSeconds, double printedSeconds, double exitSeconds,
                          double boundSeconds,
                          String verdict, List<String> command, String outcome, String stderrTail) {
    }

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
            List<Lab> all = labs.all();
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
        return summarize(reports, namespaceChanges, strays, wall);
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
        try (RunServers servers = new RunServers(plan, home, external, started)) {
            currentServers = servers;
            List<String> command = plan.command(jar, recording, servers.urls());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().remove(BackendSettings.PG_ENV);
            builder.environment().remove(BackendSettings.REDIS_ENV);
            builder.environment().put("RACELAB_HOME", home.toString());
            Process child = builder.start();
            current = child;
            try {
                return watch(plan, child, servers, seen, random, started, t0, recording, out, err, command);
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
                         long t0, Path recording, Path out, Path err, List<String> command) throws Exception {
        seen.add(child.toHandle());

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
            if (underWay >= 0 && faultAt < 0 && plan.fault() != Fault.NONE
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
        if (plan.fault() != Fault.NONE && inflicted == null) {
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
        seen.add(homeProcesses(started));
        List<String> left = seen.awaitGone(PROCESS_GRACE);

        Report report = judge(plan, hung, exit, inflicted, note, faultWall, left, recording, out, err, command,
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

    /** The classes and problems of one ended run; see the class comment for what is expected. */
    private Report judge(Plan plan, boolean hung, Integer exit, String inflicted, String note, Instant faultWall,
                         List<String> left,
                         Path recordingFile, Path out, Path err, List<String> command, double underWay,
                         double fault, double printed, double ended, double bound) throws IOException {
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        JsonObject summary = summary(stdout);
        String verdict = summary != null && summary.has("verdict") ? summary.get("verdict").getAsString() : null;
        boolean summaryInterrupted = summary != null && summary.has("interrupted")
                && summary.get("interrupted").getAsBoolean();
        String serverName = plan.faulted() == Service.POSTGRES ? "PostgreSQL" : "Redis";
        boolean named = stderr.lines().anyMatch(l -> l.startsWith("racelab:") && l.contains(serverName));

        Optional<Recording> recording = Optional.empty();
        String recordingProblem = null;
        if (!Files.exists(recordingFile)) {
            recordingProblem = "no recording";
        } else {
            try {
                recording = Optional.of(new RecordingReader(id -> labs.find(id).orElse(null)).read(recordingFile));
            } catch (RecordingException e) {
                recordingProblem = "recording unreadable: " + e.getMessage();
            }
        }

        List<String> problems = new ArrayList<>();
        Result result;
        Fault done = inflicted == null ? Fault.NONE : plan.fault();
        if (hung) {
            result = Result.HUNG;
            problems.add(String.format("still running %.1f s after it started, past its bound; killed", ended)
                    + (summary != null ? " (it had printed its summary, verdict " + verdict + ")"
                    : stderr.lines().anyMatch(l -> l.startsWith("racelab:")) ? " (it had printed an error line)"
                    : " (it had printed no result)"));
        } else {
            result = switch (done) {
                case NONE -> {
                    if (exit != 0) {
                        problems.add("exit " + exit + " with no fault" + (plan.fault() == Fault.NONE ? "" : " inflicted"));
                        yield Result.WRONG_EXIT;
                    }
                    if (verdict == null) {
                        problems.add("exit 0 without a verdict on standard output");
                        yield Result.UNNAMED_CAUSE;
                    }
                    yield plan.fault() == Fault.NONE ? Result.OK : Result.FAULT_TOO_LATE;
                }
                case SIGTERM -> {
                    if (summary == null) {
                        problems.add("signalled, exit " + exit + ", and no summary printed");
                        yield Result.UNNAMED_CAUSE;
                    }
                    if (summaryInterrupted) {
                        yield Result.OK;
                    }
                    yield verdict != null ? Result.FAULT_TOO_LATE : Result.UNNAMED_CAUSE;
                }
                case SERVER_KILL, SERVER_FREEZE, BACKEND_KILL -> {
                    if (exit == 1) {
                        if (named) {
                            yield Result.OK;
                        }
                        problems.add("exit 1 without a line naming " + serverName + " on standard error");
                        yield Result.UNNAMED_CAUSE;
                    }
                    if (exit == 0 && verdict != null && cameAfterWork(recording, faultWall)) {
                        yield Result.FAULT_TOO_LATE;
                    }
                    problems.add("exit " + exit + (verdict == null ? "" : " with verdict " + verdict)
                            + " though the fault came while the workers were at work");
                    yield Result.WRONG_EXIT;
                }
            };
        }

        boolean wantInterrupted = result == Result.OK && done == Fault.SIGTERM;
        if (recordingProblem != null) {
            problems.add(recordingProblem);
        } else if (recording.get().interrupted() != wantInterrupted && !hung) {
            problems.add(wantInterrupted ? "the recording is not marked interrupted"
                    : "the recording is marked interrupted");
        }
        if (recordingProblem != null || problems.stream().anyMatch(p -> p.contains("marked interrupted"))) {
            result = result.failure() ? result : Result.RECORDING;
        }
        if (!left.isEmpty()) {
            problems.add("still running " + PROCESS_GRACE.toSeconds() + " s after the child ended (killed): "
                    + String.join(", ", left));
            result = result.failure() ? result : Result.PROCESS_LEFT;
        }
        if (result == Result.FAULT_TOO_LATE) {
            note = (note != null ? note : done == Fault.SIGTERM ? "the signal came after the run was recorded"
                    : "the fault came after the workers were done") + workTime(recording);
        }
        String outcome = summary == null ? tail(stdout, 12)
                : verdict + " · " + text(summary, "headline") + " · " + text(summary, "explanation")
                + (summaryInterrupted ? " · interrupted" : "");
        return new Report(plan, result, problems, inflicted, note, exit, underWay, fault, printed, ended, bound, verdict,
                command, outcome, tail(stderr, 15));
    }

    private static String text(JsonObject json, String field) {
        return json.has(field) && !json.get(field).isJsonNull() ? json.get(field).getAsString() : "";
    }

    /** The JSON summary the child printed, or null. */
    private static JsonObject summary(String stdout) {
        int start = stdout.indexOf('{');
        if (start < 0) {
            return null;
        }
        try {
            JsonElement json = JsonParser.parseString(stdout.substring(start));
            return json.isJsonObject() ? json.getAsJsonObject() : null;
        } catch (RuntimeException notJson) {
            return null;
        }
    }

    /**
     * Whether the fault came after the workers were done: after every worker's lane went DONE, or
     * else after the run began stopping or ended, by the last run's record (an event's wall-clock
     * time is the run's start plus the event's offset). Without a recording, no.
     */
    private static boolean cameAfterWork(Optional<Recording> recording, Instant fault) {
        if (recording.isEmpty() || fault == null) {
            return false;
        }
        return workEnded(recording.get().last()).map(fault::isAfter).orElse(false);
    }

    /** When the run's workers were done, by its record. */
    private static Optional<Instant> workEnded(RunRecord run) {
        Instant start = run.header().startedAt();
        int done = 0;
        long lastDone = 0;
        for (Event event : run.events().snapshot()) {
            if (event.kind() == EventKind.STATE && event.state() == ActorState.DONE) {
                done++;
                lastDone = event.nanos();
            }
            if (done == run.header().spec().workers()) {
                return Optional.of(start.plusNanos(lastDone));
            }
            if (event.kind() == EventKind.RUN_STOPPING || event.kind() == EventKind.RUN_ENDED) {
                return Optional.of(start.plusNanos(event.nanos()));
            }
        }
        return Optional.empty();
    }

    /** How long the run's workers ran, by its record, for notes. */
    private static String workTime(Optional<Recording> recording) {
        if (recording.isEmpty()) {
            return "";
        }
        RunRecord run = recording.get().last();
        for (Event event : run.events().snapshot()) {
            if (event.kind() == EventKind.RUN_STARTED) {
                Instant started = run.header().startedAt().plusNanos(event.nanos());
                return workEnded(run).map(end -> " (its workers ran " + Duration.between(started, end).toMillis()
                        + " ms)").orElse("");
            }
        }
        return "";
    }

    /** Processes started since {@code since} whose command line names the soak's home: the child's servers. */
    private Stream<ProcessHandle> homeProcesses(Instant since) {
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

    private int summarize(List<Report> reports, List<String> namespaceChanges, List<String> strays, double wall)
            throws IOException {
        PrintStream out = System.out;
        List<Lab> all = labs.all();
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

    private static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    private static String indent(String text) {
        return text.isEmpty() ? "    (empty)\n" : text.lines().map(l -> "    " + l + "\n").reduce("", String::concat);
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
