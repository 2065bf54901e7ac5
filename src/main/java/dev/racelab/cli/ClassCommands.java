package dev.racelab.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code class host} and {@code class join} as picocli reads them; {@link ClassCli} does the work. */
final class ClassCommands {

    private ClassCommands() {
    }

    @Command(name = "class", description = "a class in one race: every participant's workers in one run on shared "
            + "servers", sortOptions = false,
            optionListHeading = "%noptions:%n")
    static final class ClassCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return Cli.OK;
        }
    }

    @Command(name = "host", description = "open a class on this machine's servers (or --pg-url and --redis-url), "
            + "print its join line on standard error, run LAB when --participants have joined, and print the "
            + "summary", sortOptions = false, optionListHeading = "%noptions (run's, and):%n",
            footerHeading = "%n", footer = "Each participant runs its own workers (class join --workers); the class "
                    + "is removed from the servers when the command ends.")
    static final class HostCommand implements Callable<Integer> {

        private final ClassCli cli;

        @Parameters(paramLabel = "LAB", description = "the lab the class runs (counter)")
        String lab;

        @Mixin
        RunFlags flags;

        @Option(names = "--participants", paramLabel = "N", required = true, converter = Values.WholeNumber.class,
                description = "start the run once N participants have joined (1 to 200)")
        Long participants;

        @Option(names = "--join-within", paramLabel = "SECONDS", converter = Values.WholeNumber.class,
                description = "how long to wait for them (default 600)")
        Long joinWithin;

        @Option(names = "--address", paramLabel = "ADDRESS", description = "the address participants reach this "
                + "machine at (default: its first on a network); with the embedded servers only")
        String address;

        @Option(names = "--keep-delays", description = "the participants' own delays (class join --delay) are not "
                + "used: only the host's")
        boolean keepDelays;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        HostCommand(ClassCli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            return cli.host(lab, flags, participants, joinWithin == null ? 600 : joinWithin, address, keepDelays);
        }
    }

    @Command(name = "join", description = "take part in a class: this machine's workers in its run, until the "
            + "host's verdict", sortOptions = false, optionListHeading = "%noptions:%n")
    static final class JoinCommand implements Callable<Integer> {

        private final ClassCli cli;

        @Parameters(paramLabel = "LINE", description = "the join line the host shows: racelab://CODE:PASSWORD@HOST:PORT/?redis=HOST:PORT; "
                + "- reads it from standard input (a command line is there for every user of the machine to read)")
        String line;

        @Option(names = "--name", paramLabel = "NAME", description = "what the class's timeline calls you "
                + "(default: your login name)")
        String name;

        @Option(names = "--workers", paramLabel = "N", converter = Values.WholeNumber.class,
                description = "how many workers this machine runs (1 to 16; default 1)")
        Long workers;

        @Option(names = "--delay", paramLabel = "GATE=MS", description = "a delay at your own workers' gate, as "
                + "run's --delay writes it (repeatable), unless the host keeps the delays")
        java.util.List<String> delays = new java.util.ArrayList<>();

        @Option(names = "--headless", description = "no window: progress on standard error, the verdict on standard "
                + "output")
        boolean headless;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        JoinCommand(ClassCli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            return cli.join(line, name, workers == null ? 1 : workers, delays, headless);
        }
    }
}
