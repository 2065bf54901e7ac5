package dev.racelab.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.Labs;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;

/**
 * RaceLab without the window: {@code list} the labs, {@code run} one headless.
 *
 * <p>Exit codes: 0 ran, 1 a server could not be reached or started, 2 bad usage, 3 the verdict
 * differed from {@code --expect}. Every problem is one line on standard error that names it;
 * no stack traces. With {@code --json}, standard output carries exactly one JSON object.
 */
public final class Cli {

    public static final int OK = 0;
    public static final int BACKEND_FAILURE = 1;
    public static final int USAGE = 2;
    public static final int UNEXPECTED_VERDICT = 3;

    private static final Gson JSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();
    /** A run that stops making progress ends by its own timeout; this only bounds a supervisor gone wrong. */
    private static final Duration RUN_BOUND = Duration.ofHours(6);

    private final Map<String, String> env;
    private final Path home;
    private final PrintStream out;
    private final PrintStream err;

    public Cli(Map<String, String> env, Path home, PrintStream out, PrintStream err) {
        this.env = env;
        this.home = home;
        this.out = out;
        this.err = err;
    }

    /** Runs the command line and returns the exit code. */
    public int run(List<String> args) {
        try {
            if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("-h")
                    || args.get(0).equals("help")) {
                out.print(Help.TEXT);
                return OK;
            }
            return switch (args.get(0)) {
                case "list" -> list(args.subList(1, args.size()));
                case "run" -> runLab(args.subList(1, args.size()));
                case "--version", "version" -> {
                    out.println("racelab " + Help.version());
                    yield OK;
                }
                default -> throw new UsageException("unknown command '" + args.get(0) + "' (commands: list, run)");
            };
        } catch (UsageException e) {
            err.println("racelab: " + e.getMessage());
            return USAGE;
        } catch (BackendException e) {
            err.println("racelab: " + e.getMessage());
            return BACKEND_FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("racelab: interrupted");
            return BACKEND_FAILURE;
        } catch (IOException e) {
            err.println("racelab: " + e.getMessage());
            return USAGE;
        }
    }

    private int list(List<String> args) throws UsageException {
        boolean json = false;
        for (String arg : args) {
            if (arg.equals("--json")) {
                json = true;
            } else {
                throw new UsageException("list takes only --json, not '" + arg + "'");
            }
        }
        try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            if (json) {
                List<Object> all = new ArrayList<>();
                labs.all().forEach(lab -> all.add(describe(lab)));
                out.println(JSON.toJson(Map.of("labs", all)));
            } else {
                Help.printLabs(labs.all(), out);
            }
        }
        return OK;
    }

    private static Map<String, Object> describe(Lab lab) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("id", lab.id());
        map.put("title", lab.title());
        map.put("story", lab.story());
        map.put("services", lab.services().stream().sorted().map(s -> s.name().toLowerCase()).toList());
        map.put("defaultStrategy", lab.defaultStrategy().id());
        List<Object> strategies = new ArrayList<>();
        for (Strategy s : lab.strategies()) {
            strategies.add(Map.of("id", s.id(), "title", s.title(), "summary", s.summary(), "broken", s.broken()));
        }
        map.put("strategies", strategies);
        List<Object> gates = new ArrayList<>();
        for (Gate g : lab.gates()) {
            gates.add(Map.of("id", g.id(), "description", g.description()));
        }
        map.put("gates", gates);
        map.put("workerRole", lab.workerRole());
        map.put("defaults", Map.of("workers", lab.defaultWorkers(), "ops", lab.defaultOps()));
        map.put("maxWorkers", lab.maxWorkers());
        return map;
    }

    private int runLab(List<String> args) throws UsageException, BackendException, InterruptedException, IOException {
        if (args.isEmpty() || args.get(0).startsWith("-")) {
            throw new UsageException("run needs a lab: racelab run LAB [options] (see racelab list)");
        }
        Backends backends = new Backends(BackendSettings.embedded(), home, new StartupProgress(err));
        // Ctrl-C ends the JVM without finally blocks: the hook still stops the embedded servers.
        Thread hook = new Thread(backends::close, "racelab-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try (backends) {
            Labs labs = new Labs(backends);
            String id = args.get(0);
            Lab lab = labs.find(id).orElseThrow(() -> new UsageException(
                    "unknown lab '" + id + "' (labs: " + labs.ids() + ")"));
            RunOptions options = RunOptions.parse(lab, args.subList(1, args.size()));
            try {
                backends.use(BackendSettings.resolve(options.pgUrl(), options.redisUrl(), env));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            long startupStart = System.nanoTime();
            for (Service service : lab.services()) {
                backends.ensure(service);
            }
            long startupMs = (System.nanoTime() - startupStart) / 1_000_000;
            try (Recording recording = options.record() == null ? Recording.NONE : Recording.open(options.record())) {
                return execute(lab, options, backends, recording, startupMs);
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to: it closes the servers.
            }
        }
    }

    private int execute(Lab lab, RunOptions options, Backends backends, Recording recording, long startupMs)
            throws InterruptedException, IOException {
        Map<Verdict, Integer> verdicts = new EnumMap<>(Verdict.class);
        Map<String, Long> violations = new TreeMap<>();
        long events = 0;
        Outcome last = null;
        boolean allExpected = true;
        BackendException serverDown = null;
        long start = System.nanoTime();
        for (int i = 0; i < options.runs(); i++) {
            Run run = new Run(lab, options.spec().withSeed(options.spec().seed() + i), Clock.system());
            run.start();
            Outcome outcome;
            try {
                outcome = run.awaitOutcome(RUN_BOUND);
            } catch (TimeoutException e) {
                run.stop();
                outcome = Outcome.error("no result", "The run did not end within " + RUN_BOUND.toHours() + " hours.");
            }
            recording.write(i + 1, run, outcome, backendsUsed(lab, backends));
            verdicts.merge(outcome.verdict(), 1, Integer::sum);
            outcome.violations().forEach((name, count) -> violations.merge(name, count, Long::sum));
            events += run.recorder().size();
            allExpected &= options.expect() == null || outcome.verdict() == options.expect();
            last = outcome;
            if (options.runs() > 1 && !options.json()) {
                out.printf("run %d/%d: %s%n", i + 1, options.runs(), outcome.banner());
            }
            if (outcome.verdict() == Verdict.ERROR) {
                // An ERROR may be the lab's, or a server that died under it: the latter ends the
                // command as a backend failure, after the summary of what was run.
                serverDown = deadServer(lab, backends);
                if (serverDown != null) {
                    break;
                }
            }
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        Verdict overall = verdicts.size() == 1 ? verdicts.keySet().iterator().next()
                : verdicts.keySet().stream().reduce(Verdict.SAFE, Verdict::worse);
        Summary summary = new Summary(lab, options, overall, verdicts, violations, last, events, elapsedMs,
                startupMs, backendsUsed(lab, backends));
        if (options.json()) {
            out.println(JSON.toJson(summary.toJson()));
        } else {
            summary.print(out);
        }
        if (serverDown != null) {
            err.println("racelab: " + serverDown.getMessage());
            return BACKEND_FAILURE;
        }
        if (!allExpected) {
            err.println("racelab: expected " + options.expect() + " in every run, got " + summary.verdictCounts());
            return UNEXPECTED_VERDICT;
        }
        return OK;
    }

    /** The first of the lab's servers that no longer answers, or null. */
    private static BackendException deadServer(Lab lab, Backends backends) {
        for (Service service : lab.services()) {
            try {
                backends.probe(service);
            } catch (BackendException e) {
                return e;
            }
        }
        return null;
    }

    private static Map<String, String> backendsUsed(Lab lab, Backends backends) {
        Map<String, String> used = new LinkedHashMap<>();
        for (Service service : Service.values()) {
            if (lab.services().contains(service)) {
                used.put(service.name().toLowerCase(), backends.describe(service));
            }
        }
        return used;
    }
}
