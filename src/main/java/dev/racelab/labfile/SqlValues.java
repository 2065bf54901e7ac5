package dev.racelab.labfile;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a PostgreSQL block of a lab file uses a value ({@code $name}): outside string literals,
 * quoted identifiers, comments and dollar-quoted text, and not inside an identifier ({@code a$b}).
 * {@code $tag$ … $tag$} is PostgreSQL's dollar quoting, not a value; {@code $1} is a positional
 * parameter, not a value either.
 */
final class SqlValues {

    /** A value used at {@code offset} in the block's text. */
    record Use(String name, int offset) {
    }

    private SqlValues() {
    }

    static List<Use> in(String sql) {
        List<Use> uses = new ArrayList<>();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                boolean escapes = c == '\'' && i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e')
                        && (i == 1 || !identifierPart(sql.charAt(i - 2)));
                i = closing(sql, i + 1, c, escapes);
            } else if (c == '-' && sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? sql.length() : end + 1;
            } else if (c == '/' && sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? sql.length() : end + 2;
            } else if (c == '$' && (i == 0 || !identifierPart(sql.charAt(i - 1)))) {
                int end = i + 1;
                while (end < sql.length() && identifierPart(sql.charAt(end)) && sql.charAt(end) != '$') {
                    end++;
                }
                if (end < sql.length() && sql.charAt(end) == '$') {
                    // Dollar quoting: $$ … $$ or $tag$ … $tag$.
                    String tag = sql.substring(i, end);
                    int close = sql.indexOf(tag + "$", end + 1);
                    i = close < 0 ? sql.length() : close + tag.length() + 1;
                } else {
                    if (valueEnd(sql, i) > 0) {
                        uses.add(new Use(sql.substring(i + 1, end), i));
                    }
                    i = end;
                }
            } else {
                i++;
            }
        }
        return uses;
    }

    /**
     * After an opening {@code quote}: the index past its closing one ({@code ''} or {@code ""}
     * doubled inside; with {@code escapes}, an {@code E'…'} string's backslash escapes too).
     */
    private static int closing(String sql, int from, char quote, boolean escapes) {
        int i = from;
        while (i < sql.length()) {
            if (escapes && sql.charAt(i) == '\\') {
                i += 2;
                continue;
            }
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return sql.length();
    }

    /**
     * Where the value's name ends when a value ({@code $name}, a letter or {@code _} first) starts
     * at {@code dollar} in {@code text}; -1 when none does (inside a name, {@code $1}, a lone {@code $}).
     */
    static int valueEnd(String text, int dollar) {
        if (dollar > 0 && identifierPart(text.charAt(dollar - 1)) || dollar + 1 >= text.length()) {
            return -1;
        }
        char first = text.charAt(dollar + 1);
        if (!(Character.isLetter(first) || first == '_' || first >= 0x80)) {
            return -1;
        }
        int end = dollar + 1;
        while (end < text.length() && identifierPart(text.charAt(end)) && text.charAt(end) != '$') {
            end++;
        }
        return end;
    }

    static boolean identifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c >= 0x80;
    }
}
