package dev.racelab.labfile;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an {@code EVAL} script of a lab file may do, checked from its text: Redis runs a script's
 * commands on any key it names, so a script must name its keys as {@code KEYS[n]}, the keys the
 * command declares (and {@link RedisScript} checks). Every use of {@code redis} is a call, {@code
 * redis.call('CMD', …)} or {@code redis.pcall('CMD', …)}, of a command a lab file may use, its
 * keys {@code KEYS[1]} … {@code KEYS[n]}; nothing that could reach Redis another way (the global
 * table, loading code) is allowed.
 */
final class LuaCalls {

    private static final Set<String> REFUSED = Set.of("_G", "_ENV", "load", "loadstring", "loadfile", "dofile",
            "require", "getfenv", "setfenv", "rawget", "rawset", "rawequal", "setmetatable", "getmetatable", "debug");
    private static final Pattern CALL = Pattern.compile("\\s*\\.\\s*p?call\\s*\\(");
    private static final Pattern KEY = Pattern.compile("KEYS\\s*\\[\\s*(\\d+)\\s*\\]");

    private LuaCalls() {
    }

    /** Checks {@code script}, which declares {@code keys} keys; a problem is refused at {@code offset}. */
    static void check(String script, int keys, int offset) throws RedisScript.Refusal {
        String code = withoutStringsAndComments(script);
        Matcher word = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*").matcher(code);
        while (word.find()) {
            String name = word.group();
            if (REFUSED.contains(name)) {
                throw new RedisScript.Refusal(offset, "the script uses " + name + ": a lab file's script may reach "
                        + "Redis only through redis.call with its declared KEYS");
            }
            if (name.equals("redis")) {
                Matcher call = CALL.matcher(code).region(word.end(), code.length());
                if (!call.lookingAt()) {
                    throw new RedisScript.Refusal(offset, "the script uses redis other than as redis.call(…) or "
                            + "redis.pcall(…)");
                }
                callAt(script, call.end(), keys, offset);
            }
        }
    }

    /** The call whose arguments begin at {@code from} in {@code script}: a command a lab may use, its keys from KEYS. */
    private static void callAt(String script, int from, int keys, int offset) throws RedisScript.Refusal {
        List<String> args = arguments(script, from);
        String first = args.isEmpty() ? "" : args.get(0);
        if (first.length() < 2 || (first.charAt(0) != '\'' && first.charAt(0) != '"')
                || first.charAt(first.length() - 1) != first.charAt(0)) {
            throw new RedisScript.Refusal(offset, "a redis.call in the script names its command as a written string, "
                    + "not " + (first.isEmpty() ? "nothing" : first));
        }
        String command = first.substring(1, first.length() - 1).toUpperCase(Locale.ROOT);
        RedisScript.Keys kind = RedisScript.keysOf(command);
        if (kind == null || kind == RedisScript.Keys.SCRIPT) {
            throw new RedisScript.Refusal(offset, "the script calls " + command + ", which a lab file may not use");
        }
        List<String> rest = args.subList(1, args.size());
        List<String> named = switch (kind) {
            case NONE, SCRIPT -> List.of();
            case FIRST -> rest.subList(0, Math.min(1, rest.size()));
            case FIRST_TWO -> rest.subList(0, Math.min(2, rest.size()));
            case ALL -> rest;
            case ALL_BUT_LAST -> rest.subList(0, Math.max(0, rest.size() - 1));
            case PAIRS -> everyOther(rest);
        };
        for (String key : named) {
            Matcher m = KEY.matcher(key);
            if (!m.matches() || Integer.parseInt(m.group(1)) < 1 || Integer.parseInt(m.group(1)) > keys) {
                throw new RedisScript.Refusal(offset, "the script's " + command + " names the key " + key
                        + ": a script's keys are KEYS[1] to KEYS[" + keys + "], the keys EVAL declares");
            }
        }
    }

    private static List<String> everyOther(List<String> args) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < args.size(); i += 2) {
            keys.add(args.get(i));
        }
        return keys;
    }

    /** The arguments of the call whose '(' ends just before {@code from}, split at its own commas, trimmed. */
    private static List<String> arguments(String script, int from) {
        List<String> args = new ArrayList<>();
        int depth = 0;
        int start = from;
        char quote = 0;
        for (int i = from; i < script.length(); i++) {
            char c = script.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
                depth--;
            } else if (c == ',' && depth == 0) {
                args.add(script.substring(start, i).strip());
                start = i + 1;
            } else if (c == ')') {
                String last = script.substring(start, i).strip();
                if (!last.isEmpty() || !args.isEmpty()) {
                    args.add(last);
                }
                return args;
            }
        }
        args.add(script.substring(start).strip());
        return args;
    }

    /** {@code script} with its strings and comments blanked out (same length), so only code is searched. */
    private static String withoutStringsAndComments(String script) {
        StringBuilder code = new StringBuilder(script);
        int i = 0;
        while (i < script.length()) {
            char c = script.charAt(i);
            int end;
            if (c == '\'' || c == '"') {
                end = i + 1;
                while (end < script.length() && script.charAt(end) != c) {
                    end += script.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end + 1, script.length());
            } else if (script.startsWith("--[[", i)) {
                int close = script.indexOf("]]", i + 4);
                end = close < 0 ? script.length() : close + 2;
            } else if (script.startsWith("--", i)) {
                int close = script.indexOf('\n', i);
                end = close < 0 ? script.length() : close;
            } else if (script.startsWith("[[", i)) {
                int close = script.indexOf("]]", i + 2);
                end = close < 0 ? script.length() : close + 2;
            } else {
                i++;
                continue;
            }
            for (int j = i; j < end; j++) {
                code.setCharAt(j, ' ');
            }
            i = end;
        }
        return code.toString();
    }
}
