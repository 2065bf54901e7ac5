package dev.racelab.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The commands as picocli reads them: their arguments, options and help texts. Each command
 * hands what it read to {@link Cli}, which does the work; nothing here starts a server.
 */
final class Commands {

    private Commands() {
    }

    @Command(name = "racelab", mixinStandardHelpOptions = true, versionProvider = Help.Version.class,
            header = "RaceLab: see, provoke and fix concurrency bugs against real PostgreSQL and Redis.",
            synopsisHeading = "%nusage:%n",
            customSynopsis = {
                "  racelab                   start the window",
                "  racelab COMMAND [ARGS]    the command line, headless:"},
            commandListHeading = "",
            optionListHeading = "%noptions:%n",
            exitCodeListHeading = "%nexit codes:%n",
            exitCodeList = {
                "0:ran (every verdict as --expect says, if given)",
                "1:a server could not be reached, started or used, or failed during a run",
                "2:bad usage, or a file that cannot be read or written",
                "3:a verdict differed from --expect"},
            footerHeading = "%n",
            footer = "racelab help COMMAND, or racelab COMMAND --help, tells more about one command.")
    static final class Root implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return Cli.OK;
        }
    }

    @Command(name = "list", description = "labs, their strategies, gates and defaults",
            sortOptions = false, optionListHeading = "%noptions:%n")
    static final class ListCommand implements Callable<Integer> {

        private final Cli cli;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        @Option(names = "--json", description = "one JSON object: every lab with its strategies, gates, switches "
                + "and defaults")
        boolean json;

        @Parameters(arity = "0..1", paramLabel = "FILE.lab", description = "a lab file (or an isolation spec) to "
                + "read and check, instead of the built-in labs; docs/lab-format.md")
        Path file;

        ListCommand(Cli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws UsageException {
            return file == null ? cli.list(json) : cli.listFile(file, json);
        }
    }

    @Command(name = "run", description = "one headless run: a summary, or --json",
            sortOptions = false, optionListHeading = "%noptions:%n")
    static final class RunCommand implements Callable<Integer> {

        private final Cli cli;

        @Parameters(paramLabel = "LAB", description = "the lab to run (racelab list names them), or a FILE.lab or "
                + "isolation FILE.spec")
        String lab;

        @Mixin
        RunFlags flags;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        RunCommand(Cli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            return cli.runLab(lab, flags);
        }
    }

    @Command(name = "explore", description = "every interleaving of a lab's gates on the servers: the failing "
            + "ones, the simplest shrunk", sortOptions = false, optionListHeading = "%noptions (run's, and):%n",
            footerHeading = "%n", footer = {"Without --workers and --ops: the fewest workers that show the race (2; the job "
                    + "queue 3: the producer and two consumers), 1 operation each (readers-writers 4). Delays are dropped: the schedule decides the order (a delay at a fault gate arms it).",
                "Exit 0 whatever it found; 3 with --expect SAFE when a schedule failed."})
    static final class ExploreLabCommand implements Callable<Integer> {

        private final Cli cli;

        @Parameters(paramLabel = "LAB", description = "the lab to explore (racelab list names them), or a FILE.lab "
                + "or isolation FILE.spec")
        String lab;

        @Mixin
        RunFlags flags;

        @Mixin
        ExploreFlags explore;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        ExploreLabCommand(Cli cli) {
            this.cli = cli;
        }

        /**
         * The run options as explore reads them: those it refuses ({@code --runs}, {@code --sweep},
         * {@code --record}) left out of its help, and {@code --seed} and {@code --expect} said its way.
         */
        static void tailor(CommandSpec spec) {
            for (String name : List.of("--runs", "--sweep", "--record")) {
                OptionSpec option = spec.findOption(name);
                spec.remove(option);
                spec.addOption(option.toBuilder().hidden(true).build());
            }
            retell(spec, "--seed", "seed for pct and random, and for anything random in the lab");
            retell(spec, "--expect", "SAFE: exit 3 if some schedule failed; another verdict: exit 3 unless some "
                    + "schedule ended so");
            retell(spec, "--force", "let --record-failing replace the files it writes");
        }

        private static void retell(CommandSpec spec, String name, String description) {
            OptionSpec option = spec.findOption(name);
            spec.remove(option);
            spec.addOption(option.toBuilder().description(description).build());
        }

        @Override
        public Integer call() throws Exception {
            return cli.explore(lab, flags, explore);
        }
    }

    @Command(name = "replay", description = "the summary of a recorded run, with no server",
            sortOptions = false, optionListHeading = "%noptions:%n")
    static final class ReplayCommand implements Callable<Integer> {

        private final Cli cli;

        @Parameters(paramLabel = "FILE", description = "a recording (run --record FILE)")
        Path file;

        @Option(names = "--json", description = "print one JSON object instead of the summary")
        boolean json;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        ReplayCommand(Cli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            return cli.replay(file, json);
        }
    }

    @Command(name = "rerun", description = "run a recording's settings again (options add or replace)",
            sortOptions = false, optionListHeading = "%noptions (as for run):%n")
    static final class RerunCommand implements Callable<Integer> {

        private final Cli cli;

        @Parameters(paramLabel = "FILE", description = "a recording (run --record FILE)")
        Path file;

        @Mixin
        RunFlags flags;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        RerunCommand(Cli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            return cli.rerun(file, flags);
        }
    }

    @Command(name = "export", description = "a recording as a Chrome trace (Perfetto), CSV, or a picture",
            sortOptions = false, optionListHeading = "%noptions:%n")
    static final class ExportCommand implements Callable<Integer> {

        private final Cli cli;

        @Parameters(paramLabel = "FILE", description = "a recording (run --record FILE)")
        Path file;

        @Option(names = "--format", required = true, paramLabel = "FORMAT", order = 1, description = {
            "trace: Chrome's Trace Event JSON, for Perfetto and chrome://tracing (every run)",
            "csv: every event of every run, a line each",
            "svg, png: the timeline of one run (or with --picture the lab's picture), for slides"})
        String format;

        @Option(names = "--out", required = true, paramLabel = "OUT", order = 2, description = "the file to write: "
                + "a new one, or with --force one that exists (only ever a regular file)")
        Path out;

        @Option(names = "--force", order = 2, description = "let --out replace a file that exists (through a "
                + "symbolic link: the file it leads to)")
        boolean force;

        @Option(names = "--run", paramLabel = "N", order = 3, converter = Values.WholeNumber.class,
                description = "svg, png: which run of the recording (default: the last)")
        Long run;

        @Option(names = "--picture", order = 4, description = "svg, png: the lab's picture instead of the timeline")
        boolean picture;

        @Option(names = "--from", paramLabel = "MS", order = 5, converter = Values.WholeNumber.class,
                description = "svg, png: the timeline from this many ms after the workers started (default 0)")
        Long from;

        @Option(names = "--to", paramLabel = "MS", order = 6, converter = Values.WholeNumber.class,
                description = "svg, png: the timeline up to this many ms (default: the run's end)")
        Long to;

        @Option(names = "--scale", paramLabel = "X", order = 7, converter = Values.WholeNumber.class,
                description = "png: image pixels per screen pixel, 1 to 8 (default 2, or 1 where a picture of "
                        + "many lanes would be too large at 2)")
        Long scale;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        ExportCommand(Cli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            return cli.export(file, format, out, force, new Export.Choice(run, picture, from, to, scale));
        }
    }

    @Command(name = "isolation", description = "PostgreSQL isolation specs: each one's transcript, as "
            + "isolationtester prints it", sortOptions = false, optionListHeading = "%noptions:%n",
            exitCodeListHeading = "%nexit codes:%n",
            exitCodeList = {
                "0:the specs ran (a step's SQL error is part of the transcript)",
                "1:a server problem: it cannot be reached or may not create databases and roles, a spec needs more "
                        + "rights than its role has, or a spec stopped part-way",
                "2:a malformed spec (its line and column named), a bad permutation, file or option"})
    static final class IsolationSpecsCommand implements Callable<Integer> {

        private final Cli cli;

        @Parameters(paramLabel = "SPEC", arity = "1..*", description = "spec files in PostgreSQL's isolation test "
                + "format, or names of RaceLab's teaching specs (p4-lost-update, …); each runs in a scratch database "
                + "RaceLab creates and drops")
        List<Path> specs;

        @Option(names = "--permutation", paramLabel = "STEPS", order = 1, description = "run only this order of "
                + "steps, as a permutation line writes it: \"s1a s2a(*) s1b\"")
        String permutation;

        @Option(names = "--out", paramLabel = "DIR", order = 2, description = "write DIR/<spec name>.out for each "
                + "spec instead of printing the transcripts (new files, or with --force ones that exist)")
        Path out;

        @Option(names = "--force", order = 2, description = "let --out replace transcripts that exist")
        boolean force;

        @Option(names = "--pg-url", paramLabel = "URL", order = 3,
                description = "an existing PostgreSQL whose login may create databases and roles (else "
                        + "RACELAB_PG_URL, else embedded)")
        String pgUrl;

        @Option(names = "--json", order = 4, description = "one JSON object: per spec and permutation, the steps, "
                + "which waited, which failed with what error")
        boolean json;

        @Option(names = "--as-login", order = 5, description = "run the specs' sessions as the server's login itself, "
                + "with all of its rights (a superuser's, often), instead of as a role RaceLab makes for each spec "
                + "that owns only its scratch database: for a spec that needs more, and that you trust")
        boolean asLogin;

        @Option(names = {"-j", "--jobs"}, paramLabel = "N", order = 6, converter = Values.WholeNumber.class,
                description = "run up to N specs side by side, each lane in a scratch database of its own "
                + "(default: one per core, at most 4; 1 runs them one after another, as isolationtester does); "
                + "the output keeps the order given. Specs side by side share the server's limits and serializable "
                + "transactions: one that waits for a safe snapshot (DEFERRABLE) or prepares transactions may print "
                + "otherwise than alone (give --jobs 1 then)")
        Long jobs;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        IsolationSpecsCommand(Cli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            Outputs.forceNeeds("--out", out, force);
            if (jobs != null && (jobs < 1 || jobs > 64)) {
                throw new UsageException("--jobs " + jobs + ": give 1 to 64 specs to run side by side");
            }
            int lanes = jobs == null ? 0 : jobs.intValue();
            return cli.isolation(specs, permutation, out, force, pgUrl, json, asLogin, lanes);
        }
    }

    @Command(name = "version", hidden = true, description = "which RaceLab this is")
    static final class VersionCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().getOut().println("racelab " + Help.version());
            return Cli.OK;
        }
    }
}
