package dev.racelab.cli;

import picocli.CommandLine;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.util.List;
import java.util.Map;

/**
 * A command line the parser refused, in one line that names the argument at fault and, where
 * there is one, the way out. Exit code 2.
 */
final class Usage {

    private Usage() {
    }

    static String sentence(ParameterException e) {
        CommandLine where = e.getCommandLine();
        String command = where.getCommandSpec().qualifiedName();
        if (e instanceof OverwrittenOptionException overwritten) {
            return name(overwritten.getOverwritten()) + " is given more than once: give it once "
                    + "(only --delay and --set repeat)";
        }
        if (e instanceof MissingParameterException missing) {
            ArgSpec arg = missing.getMissing().get(0);
            if (arg.isOption()) {
                return name(arg) + " needs a value";
            }
            return switch (where.getCommandName()) {
                case "run" -> "run needs a lab: racelab run LAB [options] (see racelab list)";
                case "replay" -> "replay needs a recording: racelab replay FILE [--json]";
                case "rerun" -> "rerun needs a recording: racelab rerun FILE [options]";
                default -> command + " needs " + arg.paramLabel() + " (see " + command + " --help)";
            };
        }
        if (e instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            return unmatched(where, command, unmatched.getUnmatched().get(0));
        }
        if (e.getCause() instanceof TypeConversionException refused && e.getArgSpec() != null) {
            ArgSpec arg = e.getArgSpec();
            if (arg.type() == boolean.class || arg.type() == Boolean.class) {
                // A switch: given alone it is on; --json=false and --json=true say so outright.
                return name(arg) + " is true or false, not '" + e.getValue() + "' (or give " + name(arg)
                        + " alone, or leave it out)";
            }
            return name(arg) + " " + refused.getMessage();
        }
        // Anything else picocli refuses, in its own words: the first line, to keep to one.
        return String.valueOf(e.getMessage()).lines().findFirst().orElse("the command line is wrong")
                + " (see " + command + " --help)";
    }

    private static String unmatched(CommandLine where, String command, String arg) {
        if (!arg.startsWith("-")) {
            if (where.getParent() == null) {
                return "unknown command '" + arg + "' (commands: " + String.join(", ", commands(where)) + ")";
            }
            return "unexpected argument '" + arg + "' (see " + command + " --help)";
        }
        return "unknown option " + arg + " (see " + command + " --help)";
    }

    private static List<String> commands(CommandLine root) {
        return root.getSubcommands().entrySet().stream()
                .filter(c -> !c.getValue().getCommandSpec().usageMessage().hidden())
                .map(Map.Entry::getKey).toList();
    }

    private static String name(ArgSpec arg) {
        return arg instanceof OptionSpec option ? option.longestName() : arg.paramLabel();
    }
}
