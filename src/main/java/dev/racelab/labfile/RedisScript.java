package dev.racelab.labfile;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A Redis block of a lab file: one command per line, arguments split on blanks, {@code "…"} (with
 * {@code \"} and {@code \\}) and {@code '…'} quoting. Each command must be one whose keys RaceLab
 * knows from its arguments, and every key must begin with {@code racelab:} as written: what a
 * block may touch is decided from its text, before anything runs.
 */
final class RedisScript {

    /** The prefix every key a lab file names must begin with, as written. */
    static final String PREFIX = "racelab:";

    /** One argument: its text (unquoted), where it starts in the block, and whether it was quoted with {@code '…'}. */
    record Arg(String text, int offset, boolean literal) {
    }

    /** One command: its arguments, the command's name first. */
    record Command(List<Arg> args) {
        String name() {
            return args.get(0).text().toUpperCase(Locale.ROOT);
        }
    }

    /** A problem at {@code offset} in the block's text. */
    static final class Refusal extends Exception {
        final int offset;

        Refusal(int offset, String problem) {
            super(problem);
            this.offset = offset;
        }
    }

    /** How a command names its keys. */
    enum Keys {
        /** None. */
        NONE,
        /** The first argument. */
        FIRST,
        /** The first two arguments. */
        FIRST_TWO,
        /** Every argument. */
        ALL,
        /** Every argument but the last (a timeout). */
        ALL_BUT_LAST,
        /** Every other argument from the first: key value key value … */
        PAIRS,
        /** A script, a written-out key count, then that many keys. */
        SCRIPT
    }

    private static final Map<Keys, Set<String>> COMMANDS = Map.of(
            Keys.NONE, Set.of("MULTI", "EXEC", "DISCARD", "UNWATCH", "WAIT", "PING", "TIME", "ECHO"),
            Keys.FIRST, Set.of("GET", "SET", "SETNX", "SETEX", "PSETEX", "GETSET", "GETDEL", "GETEX", "INCR", "DECR",
                    "INCRBY", "DECRBY", "INCRBYFLOAT", "APPEND", "STRLEN", "EXPIRE", "PEXPIRE", "EXPIREAT",
                    "PEXPIREAT", "TTL", "PTTL", "PERSIST", "TYPE", "HGET", "HSET", "HSETNX", "HDEL", "HGETALL",
                    "HINCRBY", "HEXISTS", "HLEN", "HKEYS", "HVALS", "HMGET", "LPUSH", "RPUSH", "LPOP", "RPOP", "LLEN",
                    "LRANGE", "LINDEX", "LREM", "LSET", "LTRIM", "SADD", "SREM", "SMEMBERS", "SISMEMBER", "SCARD",
                    "SPOP", "ZADD", "ZREM", "ZRANGE", "ZSCORE", "ZINCRBY", "ZCARD", "ZRANK"),
            Keys.FIRST_TWO, Set.of("RPOPLPUSH", "LMOVE", "SMOVE", "RENAME"),
            Keys.ALL, Set.of("DEL", "UNLINK", "EXISTS", "WATCH", "MGET", "TOUCH"),
            Keys.ALL_BUT_LAST, Set.of("BLPOP", "BRPOP"),
            Keys.PAIRS, Set.of("MSET", "MSETNX"),
            Keys.SCRIPT, Set.of("EVAL"));

    private RedisScript() {
    }

    /** The block's commands, each checked; the first problem is thrown with where it is. */
    static List<Command> read(String text) throws Refusal {
        List<Command> commands = new ArrayList<>();
        int lineStart = 0;
        while (lineStart <= text.length()) {
            int end = text.indexOf('\n', lineStart);
            if (end < 0) {
                end = text.length();
            }
            List<Arg> args = split(text, lineStart, end);
            if (!args.isEmpty()) {
                Command command = new Command(args);
                check(command);
                commands.add(command);
            }
            lineStart = end + 1;
        }
        return commands;
    }

    private static List<Arg> split(String text, int from, int to) throws Refusal {
        List<Arg> args = new ArrayList<>();
        int i = from;
        while (i < to) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            StringBuilder arg = new StringBuilder();
            boolean literal = c == '\'';
            if (c == '"' || c == '\'') {
                i++;
                while (true) {
                    if (i >= to) {
                        throw new Refusal(start, "the quoted argument that starts here is never closed on its line");
                    }
                    char q = text.charAt(i);
                    if (q == c) {
                        i++;
                        break;
                    }
                    if (c == '"' && q == '\\' && i + 1 < to) {
                        q = text.charAt(++i);
                    }
                    arg.append(q);
                    i++;
                }
            } else {
                while (i < to && !Character.isWhitespace(text.charAt(i))) {
                    arg.append(text.charAt(i++));
                }
            }
            args.add(new Arg(arg.toString(), start, literal));
        }
        return args;
    }

    /** How command {@code name} (upper case) names its keys, or null for one a lab file may not use. */
    static Keys keysOf(String name) {
        return COMMANDS.entrySet().stream().filter(e -> e.getValue().contains(name)).map(Map.Entry::getKey)
                .findFirst().orElse(null);
    }

    private static void check(Command command) throws Refusal {
        Arg first = command.args().get(0);
        String name = command.name();
        Keys keys = keysOf(name);
        if (keys == null) {
            throw new Refusal(first.offset(), "Redis command " + first.text()
                    + " is not one a lab file may use: RaceLab must know from the text which keys it touches");
        }
        List<Arg> named = named(command, keys);
        if (keys != Keys.NONE && keys != Keys.SCRIPT && named.isEmpty()) {
            throw new Refusal(first.offset(), name + " needs a key");
        }
        for (Arg key : named) {
            if (!key.text().startsWith(PREFIX)) {
                throw new Refusal(key.offset(), key.text().startsWith("$")
                        ? "the key " + key.text() + " is a value: a lab file's keys begin with " + PREFIX
                        + " as written, so what they name is known before the run"
                        : "the key " + key.text() + " does not begin with " + PREFIX + " and a lab file may name only "
                        + "keys that do");
            }
        }
    }

    /** The keys a checked block's commands name, as written. */
    static List<String> keys(String text) throws Refusal {
        List<String> keys = new ArrayList<>();
        for (Command command : read(text)) {
            Keys kind = keysOf(command.name());
            if (kind != null) {
                named(command, kind).forEach(key -> keys.add(key.text()));
            }
        }
        return keys;
    }

    /** The arguments of {@code command} that are keys. */
    private static List<Arg> named(Command command, Keys keys) throws Refusal {
        Arg first = command.args().get(0);
        List<Arg> rest = command.args().subList(1, command.args().size());
        return switch (keys) {
            case NONE -> List.of();
            case FIRST -> rest.subList(0, Math.min(1, rest.size()));
            case FIRST_TWO -> rest.subList(0, Math.min(2, rest.size()));
            case ALL -> rest;
            case ALL_BUT_LAST -> rest.subList(0, Math.max(0, rest.size() - 1));
            case PAIRS -> everyOther(rest);
            case SCRIPT -> scriptKeys(first, rest);
        };
    }

    /** Where the block uses values ({@code $name}): anywhere but inside {@code '…'}. */
    static List<SqlValues.Use> values(String text) {
        List<SqlValues.Use> uses = new ArrayList<>();
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                quote = 0;
            } else if (quote == '"' && c == '\\') {
                i++;
            } else if (quote == 0 && (c == '\'' || c == '"')) {
                quote = c;
            } else if (c == quote) {
                quote = 0;
            } else if (c == '$' && quote != '\'' && SqlValues.valueEnd(text, i) > 0) {
                int end = SqlValues.valueEnd(text, i);
                uses.add(new SqlValues.Use(text.substring(i + 1, end), i));
                i = end - 1;
            }
        }
        return uses;
    }

    private static List<Arg> everyOther(List<Arg> args) {
        List<Arg> keys = new ArrayList<>();
        for (int i = 0; i < args.size(); i += 2) {
            keys.add(args.get(i));
        }
        return keys;
    }

    private static List<Arg> scriptKeys(Arg command, List<Arg> rest) throws Refusal {
        if (rest.size() < 2) {
            throw new Refusal(command.offset(), command.text() + " needs a script and a key count");
        }
        Arg count = rest.get(1);
        int n;
        try {
            n = Integer.parseInt(count.text());
        } catch (NumberFormatException e) {
            throw new Refusal(count.offset(), "the key count of " + command.text() + " must be a number as written, "
                    + "not " + count.text() + ": otherwise which keys it touches cannot be known from the text");
        }
        if (n < 0 || n > rest.size() - 2) {
            throw new Refusal(count.offset(), command.text() + " says " + n + " keys but names " + (rest.size() - 2)
                    + " arguments after the count");
        }
        Arg script = rest.get(0);
        LuaCalls.check(script.text(), n, script.offset());
        return rest.subList(2, 2 + n);
    }
}
