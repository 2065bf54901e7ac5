package dev.racelab.labfile;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A checked block's text as a runner takes it: where a PostgreSQL block uses values, a Redis
 * block's commands and arguments, and an argument with its values filled in. The same reading
 * {@link LabReader} checked, so what runs is what was checked.
 */
public final class BlockText {

    /** A value ({@code $name}) used at {@code offset} of a block's text. */
    public record Use(String name, int offset) {
    }

    /** An argument of a Redis command, unquoted; {@code literal} when it was in {@code '…'} (no values in it). */
    public record Arg(String text, boolean literal) {
    }

    private static final Pattern VALUE = Pattern.compile("(?<![A-Za-z0-9_$\\x80-\\x{10FFFF}])\\$([A-Za-z_\\x80-\\x{10FFFF}][A-Za-z0-9_\\x80-\\x{10FFFF}]*)");

    private BlockText() {
    }

    /** Where a PostgreSQL block uses values, in order. */
    public static List<Use> sqlValues(String sql) {
        return SqlValues.in(sql).stream().map(u -> new Use(u.name(), u.offset())).toList();
    }

    /** A checked Redis block's commands, each its name then its arguments. */
    public static List<List<Arg>> redisCommands(String text) {
        try {
            List<List<Arg>> commands = new ArrayList<>();
            for (RedisScript.Command command : RedisScript.read(text)) {
                commands.add(command.args().stream().map(a -> new Arg(a.text(), a.literal())).toList());
            }
            return commands;
        } catch (RedisScript.Refusal e) {
            throw new IllegalArgumentException("a Redis block that was not checked: " + e.getMessage(), e);
        }
    }

    /** {@code arg} with each {@code $name} replaced by {@code value.apply(name)}. */
    public static String fill(String arg, UnaryOperator<String> value) {
        Matcher m = VALUE.matcher(arg);
        StringBuilder filled = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(filled, Matcher.quoteReplacement(String.valueOf(value.apply(m.group(1)))));
        }
        m.appendTail(filled);
        return filled.toString();
    }
}
