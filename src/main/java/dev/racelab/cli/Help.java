package dev.racelab.cli;

import dev.racelab.engine.Gate;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Switch;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.IParamLabelRenderer;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST_HEADING;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER_HEADING;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_HEADER;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST_HEADING;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_SYNOPSIS;
import static picocli.CommandLine.Model.UsageMessageSpec.SECTION_KEY_SYNOPSIS_HEADING;

/**
 * What {@code racelab --help} and {@code racelab list} print. The help is picocli's, generated
 * from the commands' declarations ({@link Commands}, {@link RunFlags}); {@code racelab --help}
 * shows every command and the run options on one page, as the command line's contract does.
 */
final class Help {

    static final int WIDTH = 100;
    private static final String COMMANDS = "racelabCommands";
    private static final String RUN_OPTIONS = "racelabRunOptions";

    private Help() {
    }

    static String version() {
        String version = Help.class.getPackage().getImplementationVersion();
        return version == null ? "development build" : version;
    }

    /** {@code racelab --version}. */
    static final class Version implements IVersionProvider {

        @Override
        public String[] getVersion() {
            return new String[] {"racelab " + version()};
        }
    }

    /**
     * Plain text (no colours: the help is read in terminals, pipes and tests alike), options shown
     * as {@code --workers N} (the parser takes {@code --workers=N} too), and the top-level page
     * laid out as usage, commands, run options, exit codes.
     */
    static void install(CommandLine root) {
        // After the commands are added: these settings reach the commands there are now.
        root.setColorScheme(CommandLine.Help.defaultColorScheme(Ansi.OFF));
        root.setUsageHelpWidth(WIDTH);
        root.setHelpFactory((spec, scheme) -> new CommandLine.Help(spec, scheme) {
            @Override
            public IParamLabelRenderer parameterLabelRenderer() {
                return spaced(super.parameterLabelRenderer());
            }
        });
        // The top-level page only: set on its spec, not through CommandLine, which would pass it on
        // to every command.
        UsageMessageSpec usage = root.getCommandSpec().usageMessage();
        Map<String, CommandLine.IHelpSectionRenderer> sections = new LinkedHashMap<>(usage.sectionMap());
        sections.put(COMMANDS, Help::commands);
        sections.put(RUN_OPTIONS, Help::runOptions);
        usage.sectionMap(sections);
        usage.sectionKeys(List.of(SECTION_KEY_HEADER, SECTION_KEY_SYNOPSIS_HEADING, SECTION_KEY_SYNOPSIS,
                COMMANDS, RUN_OPTIONS, SECTION_KEY_OPTION_LIST_HEADING, SECTION_KEY_OPTION_LIST,
                SECTION_KEY_EXIT_CODE_LIST_HEADING, SECTION_KEY_EXIT_CODE_LIST, SECTION_KEY_FOOTER_HEADING,
                SECTION_KEY_FOOTER));
    }

    private static IParamLabelRenderer spaced(IParamLabelRenderer plain) {
        return new IParamLabelRenderer() {
            @Override
            public Ansi.Text renderParameterLabel(ArgSpec arg, Ansi ansi, List<Ansi.IStyle> styles) {
                Ansi.Text label = plain.renderParameterLabel(arg, ansi, styles);
                String text = label.plainString();
                return arg.isOption() && text.startsWith("=") ? ansi.text(" " + text.substring(1)) : label;
            }

            @Override
            public String separator() {
                return " ";
            }
        };
    }

    /** Each command's synopsis and what it does, from the commands themselves. */
    private static String commands(CommandLine.Help help) {
        TextTable table = TextTable.forColumns(help.colorScheme(), new Column(34, 4, Column.Overflow.SPAN),
                new Column(WIDTH - 34, 1, Column.Overflow.WRAP));
        for (CommandLine.Help command : help.subcommands().values()) {
            if (command.commandSpec().usageMessage().hidden()) {
                continue;
            }
            // As picocli's own list: the header if the command has one, else its description.
            UsageMessageSpec usage = command.commandSpec().usageMessage();
            String[] about = usage.header().length > 0 ? usage.header() : usage.description();
            table.addRowValues(command.abbreviatedSynopsis().strip().replaceFirst("^racelab ", ""),
                    String.format(about.length > 0 ? about[0] : "").strip());
        }
        return table.toString();
    }

    /** The options of {@code run} (and {@code rerun}), as {@code racelab run --help} shows them. */
    private static String runOptions(CommandLine.Help help) {
        CommandLine.Help run = help.subcommands().get("run");
        List<OptionSpec> options = new ArrayList<>();
        for (OptionSpec option : run.commandSpec().options()) {
            if (!option.usageHelp()) {
                options.add(option);
            }
        }
        CommandLine.Help.Layout layout = run.createDefaultLayout();
        layout.addOptions(options, run.parameterLabelRenderer());
        return String.format("%nrun options (rerun takes them too):%n") + layout;
    }

    static void printLabs(List<Lab> labs, PrintStream out) {
        for (Lab lab : labs) {
            out.printf("%s — %s%n  %s%n", lab.id(), lab.title(), lab.story());
            out.printf("  needs: %s · workers: %d (up to %d) × %d ops%n",
                    String.join(", ", lab.services().stream().sorted().map(s -> s.displayName()).toList()),
                    lab.defaultWorkers(), lab.maxWorkers(), lab.defaultOps());
            out.println("  strategies:");
            for (Strategy s : lab.strategies()) {
                out.printf("    %-20s %s%s%n", s.id(), s.broken() ? "[broken] " : "", s.summary());
            }
            out.println("  gates:");
            for (Gate g : lab.gates()) {
                out.printf("    %-20s %s%s%n", g.id(), g.isFault() ? "[fault] " : "", g.description());
            }
            String preset = lab.presetGates().describe(lab::workerName);
            if (!preset.isEmpty()) {
                out.printf("  preset gates (delays and faults a run starts with; --delay GATE=0 clears one): %s%n", preset);
            }
            if (!lab.switches().isEmpty()) {
                out.println("  switches (--set NAME=VALUE):");
                for (Switch<?> sw : lab.switches()) {
                    out.printf("    %-20s %s; %s, default %s%n", sw.name(), sw.description(), sw.accepted(),
                            sw.defaultText());
                }
            }
            out.println();
        }
    }
}
