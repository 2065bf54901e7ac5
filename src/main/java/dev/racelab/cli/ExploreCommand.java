package dev.racelab.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Printable;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Service;
import dev.racelab.engine.Steering;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.explore.Exploration;
import dev.racelab.engine.explore.Explorer;
import dev.racelab.engine.explore.Found;
import dev.racelab.engine.explore.Method;
import dev.racelab.engine.lab.Lab;
import dev.racelab.files.OutputFile;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingWriter;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code explore LAB [run options] [--method …] …}: runs a lab's schedules on the servers, each on
 * fresh state ({@link Explorer}), shrinks the simplest failure, and says what it found. A lab's
 * delays mean nothing here (the schedule decides the order); a delay at a fault gate arms it.
 * Without {@code --workers} and {@code --ops} it explores the lab's {@link
 * dev.racelab.engine.Experiment#exploredWorkers} doing its {@link
 * dev.racelab.engine.Experiment#exploredOps} operations each (one, for most labs): a space small
 * enough to finish.
 */
final class ExploreCommand {

    private static final Gson JSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().serializeNulls()
            .create();
    private static final long MAX_SCHEDULES = 10_000_000;
    private static final long MAX_SECONDS = 86_400;
    /** How often a long exploration says how far it got, on standard error. */
    private static final long PROGRESS_NANOS = 5_000_000_000L;

    private final Map<String, String> env;
    private final Path home;
    private final PrintStream out;
    private final PrintStream err;
    private final Consumer<Run> watcher;

    ExploreCommand(Map<String, String> env, Path home, PrintStream out, PrintStream err, Consumer<Run> watcher) {
        this.env = env;
        this.home = home;
        this.out = out;
        this.err = err;
        this.watcher = watcher;
    }

    int run(String id, RunFlags given, ExploreFlags flags) throws UsageException, BackendException,
            InterruptedException, RecordingException {
        refuseRunOnly(given);
        Backends backends = new Backends(BackendSettings.embedded(), home, new StartupProgress(err));
        try (backends; Interruption interruption = new Interruption(backends)) {
            Lab lab = Cli.pick(new Labs(backends), id);
            RunSpec small = lab.defaults().withWorkers(lab.exploredWorkers()).withOps(lab.exploredOps())
                    .withStrategy(schedulable(lab, given.strategy));
            RunOptions options = RunOptions.of(lab, given, small);
            refuseDelays(lab, given);
            if (options.spec().workers() > Steering.MAX_WORKERS) {
                throw new UsageException("--workers " + options.spec().workers() + ": a schedule orders at most "
                        + Steering.MAX_WORKERS + " workers");
            }
            Explorer.Settings settings = settings(flags, given);
            OutputFile first = null;
            OutputFile shrunk = null;
            if (flags.recordFailing != null) {
                Outputs.folder("--record-failing", flags.recordFailing);
                String stem = lab.id() + "-" + options.spec().strategy();
                first = Outputs.check(flags.recordFailing.resolve(stem + "-first.racelab"), given.force, "record to", err);
                shrunk = Outputs.check(flags.recordFailing.resolve(stem + "-shrunk.racelab"), given.force, "record to",
                        err);
            } else {
                Outputs.forceNeeds("--record-failing", null, given.force);
            }
            try {
                backends.use(BackendSettings.resolve(options.pgUrl(), options.redisUrl(), env)
                        .withStandby(options.pgStandbyUrl(), env));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            Refusals.check(lab, backends, options.spec());
            backends.loginWithin(options.connectTimeout());
            for (Service service : lab.services()) {
                backends.ensure(service);
            }
            Explorer explorer = new Explorer(lab, options.spec(), Clock.system(), run -> {
                run.record().backend(backends.describe(lab.services()));
                watcher.accept(run);
            });
            interruption.stopping(explorer::cancel);
            Listener listener = new Listener(lab);
            Exploration found;
            boolean keeping = lab.services().contains(Service.POSTGRES);
            if (keeping) {
                // Schedule after schedule: the sessions stay open between them, reset (SessionKeeper).
                backends.postgres().keepSessions(true);
            }
            try {
                found = explorer.explore(settings, listener);
            } catch (IllegalStateException e) {
                // A schedule's run that never ended: said, not a stack trace.
                err.println("racelab: " + e.getMessage());
                return Cli.BACKEND_FAILURE;
            } finally {
                if (keeping) {
                    backends.postgres().keepSessions(false);
                }
            }
            Path shrunkFile = null;
            if (first != null && listener.firstFailing != null) {
                save(lab, listener.firstFailing, first);
            }
            if (shrunk != null && found.shrunk() != null && found.shrunk().record() != null) {
                save(lab, found.shrunk().record(), shrunk);
                shrunkFile = shrunk.named();
            }
            ExploreReport report = new ExploreReport(lab, found, options.spec().workers(), options.spec().ops(),
                    shrunkFile);
            if (options.json()) {
                out.println(Printable.json(JSON.toJson(report.toJson())));
            } else {
                report.print(out);
            }
            if (found.serverFailure() != null) {
                err.println("racelab: " + found.serverFailure());
                return Cli.BACKEND_FAILURE;
            }
            Verdict expect = options.expect();
            if (expect != null && (expect == Verdict.SAFE ? found.failingCount() > 0
                    : !found.outcomes().containsKey(expect))) {
                err.println("racelab: expected " + expect + (expect == Verdict.SAFE ? " in every schedule" : " in some schedule")
                        + ", got " + found.outcomes());
                return Cli.UNEXPECTED_VERDICT;
            }
            return Cli.OK;
        }
    }

    /**
     * The strategy to explore: the one given, if a schedule can order it; else the lab's default,
     * or its first that a schedule can order.
     */
    private static String schedulable(Lab lab, String given) throws UsageException {
        List<String> can = lab.strategies().stream().filter(lab::schedulable).map(s -> s.id()).toList();
        if (can.isEmpty()) {
            throw new UsageException("lab " + lab.id() + " cannot be explored yet: " + lab.unexplorable()
                    .orElse("a schedule cannot order its workers"));
        }
        if (given != null && lab.strategy(given).isPresent() && !can.contains(given)) {
            throw new UsageException("lab " + lab.id() + "'s strategy " + given + " orders its workers itself; "
                    + "explore orders them by schedule (strategies it can explore: " + String.join(", ", can) + ")");
        }
        String fallback = lab.defaults().strategy();
        return can.contains(fallback) ? fallback : can.get(0);
    }

    private static void refuseRunOnly(RunFlags given) throws UsageException {
        if (given.runs != null) {
            throw new UsageException("--runs is not for explore: each schedule is a run of its own (--schedules N "
                    + "bounds how many)");
        }
        if (given.sweep != null) {
            throw new UsageException("--sweep is not for explore: the schedule decides the order, not the delays");
        }
        if (given.record != null) {
            throw new UsageException("--record is not for explore: --record-failing DIR saves its failures");
        }
    }

    /** A delay only arms a fault gate here; anywhere else it would be dropped, so it is refused. */
    private static void refuseDelays(Lab lab, RunFlags given) throws UsageException {
        for (String delay : given.delays) {
            String gate = delay.contains("=") ? delay.substring(0, delay.indexOf('=')) : delay;
            if (lab.gate(gate).filter(Gate::isFault).isEmpty()) {
                throw new UsageException("--delay " + delay + ": explore drops delays (the schedule decides the "
                        + "order); a delay arms a fault gate only"
                        + (lab.gates().stream().anyMatch(Gate::isFault) ? "" : ", and lab " + lab.id() + " has none"));
            }
        }
    }

    private static Explorer.Settings settings(ExploreFlags flags, RunFlags given) throws UsageException {
        Method method;
        try {
            method = Method.parse(flags.method);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--method " + flags.method + ": " + e.getMessage());
        }
        if (flags.preemptions != null && method != Method.BOUNDED) {
            throw new UsageException("--preemptions goes with --method bounded");
        }
        if (flags.depth != null && method != Method.PCT) {
            throw new UsageException("--depth goes with --method pct");
        }
        int preemptions = (int) within("--preemptions", flags.preemptions, 2, 0, 64);
        int depth = (int) within("--depth", flags.depth, 3, 1, 64);
        long schedules = within("--schedules", flags.schedules, 100_000, 1, MAX_SCHEDULES);
        long seconds = within("--time", flags.time, 60, 1, MAX_SECONDS);
        long seed = given.seed == null ? 1 : given.seed;
        return new Explorer.Settings(method, preemptions, depth, seed, schedules, Duration.ofSeconds(seconds),
                Duration.ofSeconds(seconds));
    }

    private static long within(String option, Long given, long otherwise, long min, long max) throws UsageException {
        if (given == null) {
            return otherwise;
        }
        if (given < min || given > max) {
            throw new UsageException(option + " must be from " + min + " to " + max + ", not " + given);
        }
        return given;
    }

    private static void save(Lab lab, RunRecord record, OutputFile target) throws RecordingException {
        try (RecordingWriter writer = RecordingWriter.create(target)) {
            writer.write(lab, record);
            writer.commit(0, 0, false);
        }
    }

    /** Keeps the first failing run's record, and says how far a long exploration got. */
    private final class Listener implements Explorer.Listener {

        private final Lab lab;
        private final long start = System.nanoTime();
        private long said = System.nanoTime();
        private int schedules;
        private int failing;
        RunRecord firstFailing;

        Listener(Lab lab) {
            this.lab = lab;
        }

        @Override
        public void ran(Found schedule, RunRecord record) {
            schedules++;
            if (schedule.verdict() != Verdict.SAFE) {
                failing++;
                if (firstFailing == null) {
                    firstFailing = record;
                }
            }
            long now = System.nanoTime();
            if (now - said >= PROGRESS_NANOS) {
                said = now;
                err.printf(Locale.ROOT, "racelab: %s: %d schedules, %d failing, %.1f a second%n", lab.id(),
                        schedules, failing, schedules * 1e9 / (now - start));
            }
        }

        @Override
        public void shrinking(Found failure) {
            err.println("racelab: shrinking the simplest failure (" + failure.preemptions()
                    + (failure.preemptions() == 1 ? " preemption" : " preemptions") + ")…");
        }
    }
}
