package dev.racelab.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.isolation.run.SpecSandbox;
import dev.racelab.engine.Batch;
import dev.racelab.engine.Clock;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Printable;
import dev.racelab.engine.Run;
import dev.racelab.engine.Service;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSpec;
import dev.racelab.files.OutputFile;
import dev.racelab.files.PartialFile;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingException;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingSink;
import dev.racelab.record.RecordingWriter;
import picocli.CommandLine;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * RaceLab without the window: {@code list} the labs, {@code run} one headless, {@code replay} a
 * recording's summary, {@code rerun} a recording's settings. The commands are declared in
 * {@link Commands} and parsed by picocli; this class does what they ask.
 *
 * <p>Exit codes: 0 ran, 1 a server could not be reached, started or used, or failed, or a run ended
 * ERROR (the line on standard error says what failed), 2 bad usage, 3 the verdict differed from
 * {@code --expect}. Every problem is one line on standard error that names it;
 * no stack traces. With {@code --json}, standard output carries exactly one JSON object.
 */
public final class Cli {

    public static final int OK = 0;
    public static final int BACKEND_FAILURE = 1;
    public static final int USAGE = 2;
    public static final int UNEXPECTED_VERDICT = 3;

    private static final Gson JSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();
    /** A run that stops making progress ends by its own timeout; this only bounds a supervisor gone wrong. */

    private final Map<String, String> env;
    private final Path home;
    private final PrintStream out;
    private final PrintStream err;
    private Consumer<Run> watcher = run -> { };

    public Cli(Map<String, String> env, Path home, PrintStream out, PrintStream err) {
        this.env = env;
        this.home = home;
        this.out = out;
        this.err = err;
    }

    /**
     * Hands every run to {@code watcher} as it starts, before the command waits for it: for
     * whoever embeds the command line and wants to follow its runs live (the tests do).
     */
    public Cli watching(Consumer<Run> runWatcher) {
        this.watcher = runWatcher;
        return this;
    }

    /** Runs the command line and returns the exit code. */
    public int run(List<String> args) {
        CommandLine commandLine = commandLine();
        return commandLine.execute(args.toArray(String[]::new));
    }

    /**
     * The commands, parsed by picocli: every option typed and given at most once (only
     * {@code --delay} and {@code --set} repeat), unknown ones refused, no {@code @file}
     * expansion. Every problem becomes one line on standard error and its exit code.
     */
    private CommandLine commandLine() {
        CommandLine root = new CommandLine(new Commands.Root());
        root.addSubcommand(new Commands.ListCommand(this));
        root.addSubcommand(new Commands.RunCommand(this));
        root.addSubcommand(new Commands.ExploreLabCommand(this));
        Commands.ExploreLabCommand.tailor(root.getSubcommands().get("explore").getCommandSpec());
        root.addSubcommand(new Commands.ReplayCommand(this));
        root.addSubcommand(new Commands.RerunCommand(this));
        root.addSubcommand(new Commands.ExportCommand(this));
        root.addSubcommand(new Commands.IsolationSpecsCommand(this));
        ClassCli classes = new ClassCli(env, home, out, err);
        root.addSubcommand(new CommandLine(new ClassCommands.ClassCommand())
                .addSubcommand(new ClassCommands.HostCommand(classes))
                .addSubcommand(new ClassCommands.JoinCommand(classes)));
        root.addSubcommand(new Commands.VersionCommand());
        root.addSubcommand(new CommandLine.HelpCommand());
        root.setExpandAtFiles(false);
        root.setOverwrittenOptionsAllowed(false);
        root.setOut(writer(out));
        root.setErr(writer(err));
        Help.install(root);
        root.setParameterExceptionHandler((e, args) -> {
            err.println("racelab: " + Usage.sentence(e));
            return USAGE;
        });
        root.setExecutionExceptionHandler((e, command, parsed) -> {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                err.println("racelab: interrupted");
                return BACKEND_FAILURE;
            }
            if (e instanceof BackendException) {
                err.println("racelab: " + e.getMessage());
                return BACKEND_FAILURE;
            }
            if (e instanceof UsageException || e instanceof RecordingException) {
                // These may quote a file's text (a recording's, a name given): never its controls.
                err.println("racelab: " + Printable.line(e.getMessage()));
                return USAGE;
            }
            throw e;
        });
        return root;
    }

    /** Text picocli writes (help, version) goes through {@code stream}, in the stream's own encoding. */
    private static PrintWriter writer(PrintStream stream) {
        return new PrintWriter(new Writer() {
            @Override
            public void write(char[] text, int offset, int length) {
                stream.print(new String(text, offset, length));
            }

            @Override
            public void flush() {
                stream.flush();
            }

            @Override
            public void close() {
                stream.flush();
            }
        }, true);
    }

    int list(boolean json) {
        try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            if (json) {
                List<Object> all = new ArrayList<>();
                labs.all().forEach(lab -> all.add(LabDescription.of(lab)));
                out.println(JSON.toJson(Map.of("labs", all)));
            } else {
                Help.printLabs(labs.all(), out);
            }
        }
        return OK;
    }

    /** {@code list FILE.lab [--json]}: what a lab file holds, read and checked, with no server. */
    int listFile(Path file, boolean json) throws UsageException {
        dev.racelab.labfile.LabFile read = LabFileList.read(file);
        if (read.walkthrough() != null) {
            // Its walkthrough is checked against the lab, as the window will show it.
            try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
                Labs labs = new Labs(unstarted);
                Lab lab = pick(labs, file.toString());
                new dev.racelab.walkthrough.WalkthroughReader(labs::find).embedded(file.toString(),
                        read.walkthrough().text(), read.walkthrough().line(), lab);
            } catch (dev.racelab.walkthrough.WalkthroughReader.Problem e) {
                throw new UsageException(e.getMessage());
            }
        }
        LabFileList.print(read, file, json, out);
        return OK;
    }

    /** {@code replay FILE [--json]}: the summary of a recording, exactly as its run printed it, with no server. */
    int replay(Path file, boolean json) throws RecordingException {
        try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            Summary summary = Replay.of(new Labs(unstarted), file);
            if (json) {
                out.println(Printable.json(JSON.toJson(summary.toJson())));
            } else {
                summary.print(out);
            }
        }
        return OK;
    }

    /**
     * {@code export FILE --format FORMAT --out OUT [--force]}: a recording in another form, with no
     * server and no window ({@link Export}).
     */
    int export(Path file, String format, Path target, boolean force, Export.Choice choice)
            throws RecordingException, UsageException {
        Export.check(format, choice);
        OutputFile output = Outputs.check(target, force, "write", err);
        try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT);
             Interruption interruption = new Interruption(unstarted)) {
            // Ctrl-C and SIGTERM: the export stops where it is, and its temporary file goes.
            interruption.stopping(PartialFile::abandonAll);
            Export.write(new Labs(unstarted), file, format, output, choice);
        }
        return OK;
    }

    /**
     * {@code isolation SPEC… [--permutation STEPS] [--out DIR [--force]] [--pg-url URL] [--json]
     * [--as-login] [--jobs N]}: see {@link IsolationCommand}; {@code jobs} 0 for one per core.
     */
    int isolation(List<Path> specs, String permutation, Path outDir, boolean force, String pgUrl, boolean json,
                  boolean asLogin, int jobs) throws UsageException, BackendException {
        return new IsolationCommand(env, home, out, err).run(specs, permutation, outDir, force, pgUrl, json,
                asLogin ? SpecSandbox.Access.AS_LOGIN : SpecSandbox.Access.CONFINED, jobs);
    }

    /**
     * {@code rerun FILE [run options]}: runs a recording's settings again against fresh servers;
     * options given replace or add to them.
     */
    int rerun(Path file, RunFlags given) throws UsageException, BackendException, InterruptedException,
            RecordingException {
        RunSpec base;
        Lab recorded;
        try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            // Only the last run's header is needed: the file is read through (and checked), its events not kept.
            RunHeader[] last = new RunHeader[1];
            Lab[] lastLab = new Lab[1];
            new RecordingReader(labs).readInto(file, new RecordingSink() {
                @Override
                public void lab(Lab lab) {
                    lastLab[0] = lab;
                }

                @Override
                public void run(int number, RunHeader header, Map<String, String> backend) {
                    last[0] = header;
                }
            });
            base = last[0].spec().withObserve(false).withStepMode(false);
            recorded = lastLab[0];
        }
        // A lab the recording carried as text runs from that text, as it was recorded.
        String source = recorded.source().orElse(null);
        return launch(labs -> source == null ? labs.find(recorded.id()).orElseThrow()
                : labs.carried(recorded.id(), source), given, base);
    }

    /** {@code explore LAB [run options] [explore options]}: see {@link ExploreCommand}. */
    int explore(String lab, RunFlags given, ExploreFlags flags) throws UsageException, BackendException,
            InterruptedException, RecordingException {
        return new ExploreCommand(env, home, out, err, watcher).run(lab, given, flags);
    }

    /** {@code run LAB [options]}. */
    int runLab(String lab, RunFlags given) throws UsageException, BackendException, InterruptedException,
            RecordingException {
        return launch(labs -> pick(labs, lab), given, null);
    }

    /** The lab {@code id} names: a built-in one, or a lab file or isolation spec at that path. */
    static Lab pick(Labs labs, String id) throws UsageException {
        if (Labs.isFile(id)) {
            try {
                return labs.read(Path.of(id));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        }
        return labs.find(id).orElseThrow(() -> new UsageException("unknown lab '" + id + "' (labs: " + labs.ids()
                + "; or a FILE.lab or FILE.spec)"));
    }

    /** Which lab a command runs, once the registry is made with the command's servers. */
    interface LabPick {
        Lab from(Labs labs) throws UsageException;
    }

    /** Runs the lab {@code pick} names with the options {@code given} on top of {@code base} (null: the lab's defaults). */
    private int launch(LabPick pick, RunFlags given, RunSpec base) throws UsageException, BackendException,
            InterruptedException, RecordingException {
        Backends backends = new Backends(BackendSettings.embedded(), home, new StartupProgress(err));
        // Ctrl-C and SIGTERM: the run is stopped, recorded and summed up, then the servers stop.
        try (backends; Interruption interruption = new Interruption(backends)) {
            Lab lab = pick.from(new Labs(backends));
            RunOptions options = RunOptions.of(lab, given, base == null ? lab.defaults() : base);
            try {
                backends.use(BackendSettings.resolve(options.pgUrl(), options.redisUrl(), env)
                        .withStandby(options.pgStandbyUrl(), env));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            Refusals.check(lab, backends, options.spec());
            backends.loginWithin(options.connectTimeout());
            // A recording that cannot be written is found before any server starts.
            Outputs.forceNeeds("--record", options.record(), given.force);
            try (RecordingWriter recording = options.record() == null ? null
                    : RecordingWriter.create(Outputs.check(options.record(), given.force, "record to", err))) {
                long startupStart = System.nanoTime();
                try {
                    for (Service service : lab.services()) {
                        backends.ensure(service);
                    }
                } catch (BackendException e) {
                    return notStarted(lab, options, e, (System.nanoTime() - startupStart) / 1_000_000,
                            interruption.signalled());
                }
                long startupMs = (System.nanoTime() - startupStart) / 1_000_000;
                return execute(lab, options, backends, recording, startupMs, interruption);
            }
        }
    }

    /**
     * No run: a server could not be started or reached, or a signal stopped its start. The summary
     * of no run still goes to standard output with {@code --json} (verdict ERROR and the reason, or
     * interrupted), and as text after a signal; a server's failure is the one line on standard error.
     */
    private int notStarted(Lab lab, RunOptions options, BackendException failure, long startupMs, boolean signalled) {
        // The window has no login bound to set, so only the command line names its option.
        String said = failure.getMessage() + (failure.getMessage().contains(" is slow to answer: ")
                ? "; --connect-timeout SECONDS waits longer" : "");
        Summary summary = new Summary(lab);
        summary.planned(options.spec());
        summary.times(0, startupMs, signalled);
        summary.batch(planned(options), signalled ? null : said);
        if (options.json()) {
            out.println(JSON.toJson(summary.toJson()));
        } else if (signalled) {
            summary.print(out);
        }
        if (signalled) {
            return OK;
        }
        err.println("racelab: " + said);
        return BACKEND_FAILURE;
    }

    /** How many runs the options ask for: a batch, or a batch at each delay of a sweep. */
    private static int planned(RunOptions options) {
        return options.runs() * (options.sweep() == null ? 1 : options.sweep().delays().size());
    }

    private int execute(Lab lab, RunOptions options, Backends backends, RecordingWriter recording, long startupMs,
                        Interruption interruption) throws InterruptedException, RecordingException {
        Summary summary = new Summary(lab);
        summary.planned(options.spec());
        int planned = planned(options);
        // Without a sweep, one batch of the spec; with one, a batch at each of its delays: the
        // window's loop, engine.Batch. A signal finishes it (the run in progress is stopped and
        // still recorded and summed up); a server that failed a run ends it at once, and the
        // command as a backend failure, after the summary of what was run. An ERROR may be the
        // lab's, or a server that failed the run (on its record: it stopped answering, or ended
        // the run's sessions) or is dead now: the servers are asked after such a run.
        BatchTally tally = new BatchTally(lab, options, summary, recording, out, planned,
                record -> record.serverFailure() != null ? record.serverFailure()
                        : record.outcome().verdict() == Verdict.ERROR ? deadServer(lab, backends) : null);
        Batch batch = new Batch(lab, options.spec(), List.of(options.spec().strategy()), options.runs(),
                options.sweep(), Clock.system(), run -> {
                    run.record().backend(backends.describe(lab.services()));
                    watcher.accept(run);
                })
                // A recording is made to be looked at: its runs observe their servers, as the window's
                // do (server lanes, the lab's server values), which costs a little; a plain run does not.
                .observing(recording != null)
                .endedBy(record -> tally.serverDown());
        interruption.stopping(batch::finish);
        long start = System.nanoTime();
        String serverDown = batch.run(tally.of(batch)).serverFailure();
        if (tally.unwritten() != null) {
            throw tally.unwritten();
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        summary.times(elapsedMs, startupMs, interruption.signalled());
        summary.batch(planned, serverDown);
        if (options.sweep() != null) {
            summary.sweep(options.sweep());
        }
        if (options.json()) {
            out.println(JSON.toJson(summary.toJson()));
        } else {
            summary.print(out);
        }
        String unrecorded = null;
        if (recording != null && recording.runs() > 0) {
            // After the summary: a recording that cannot be finished (a full disk, a file put in
            // its place meanwhile) loses no result the runs gave; its line says why, and exit 2.
            try {
                recording.commit(elapsedMs, startupMs, interruption.signalled(), planned, serverDown);
            } catch (RecordingException e) {
                unrecorded = e.getMessage();
            }
        }
        if (serverDown != null) {
            err.println("racelab: " + serverDown);
        }
        if (unrecorded != null) {
            err.println("racelab: " + unrecorded);
        }
        if (serverDown != null) {
            return BACKEND_FAILURE;
        }
        if (tally.failed() != null && options.expect() != Verdict.ERROR) {
            // An ERROR is a failure of the command, whatever failed: it exits 1 and says what.
            err.println("racelab: " + tally.failed());
            return BACKEND_FAILURE;
        }
        if (unrecorded != null) {
            return USAGE;
        }
        if (!tally.allExpected()) {
            err.println("racelab: expected " + options.expect() + " in every run, got " + summary.verdictCounts());
            return UNEXPECTED_VERDICT;
        }
        return OK;
    }

    /** The first of the lab's servers that no longer answers, in words, or null. */
    private static String deadServer(Lab lab, Backends backends) {
        for (Service service : lab.services()) {
            try {
                backends.probe(service);
            } catch (BackendException e) {
                return e.getMessage();
            }
        }
        return null;
    }
}
