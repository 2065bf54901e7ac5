package dev.racelab.labfile;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

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

    /** The keys a checked Redis block names, as written ({@code racelab:counter}, {@code racelab:lock:$worker}). */
    public static List<String> redisKeys(String text) {
        try {
            return RedisScript.keys(text);
        } catch (RedisScript.Refusal e) {
            throw new IllegalArgumentException("a Redis block that was not checked: " + e.getMessage(), e);
        }
    }

    /** {@code arg} with each {@code $name} replaced by {@code value.apply(name)}, as the reader found them. */
    public static String fill(String arg, UnaryOperator<String> value) {
        StringBuilder filled = new StringBuilder();
        int i = 0;
        while (i < arg.length()) {
            int end = arg.charAt(i) == '$' ? SqlValues.valueEnd(arg, i) : -1;
            if (end < 0) {
                filled.append(arg.charAt(i++));
            } else {
                filled.append(value.apply(arg.substring(i + 1, end)));
                i = end;
            }
        }
        return filled.toString();
    }
}
