package dev.racelab.isolation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's lexer, as far as telling statements and names apart needs: words folded, quoted
 * names kept, strings as one token, comments dropped, and a function's or {@code DO} block's body,
 * dollar-quoted or written as a string after {@code AS} or {@code DO}, read again as SQL, as
 * statements of their own (a {@code ;} token, with no place in the text, stands before and after).
 *
 * <p>Every token knows where it stands in the text it was read from ({@link Token#start()}, {@link
 * Token#end()}), so a caller can rewrite a name where it stands; a token read from a body written
 * as a string has no such place (its text was unescaped first) and says so ({@code start} is -1).
 *
 * <p>Names fold as PostgreSQL folds them: unquoted to lower case (ASCII letters), quoted as
 * written ({@code ""} a quote), both cut to 63 bytes.
 */
public final class SqlLexer {

    /** The token the lexer leaves where a U&amp; name or string starts: those are refused, not decoded. */
    public static final String UNICODE_ESCAPE = "\0U&";
    private static final int NAME_BYTES = 63;

    /**
     * One token.
     *
     * @param text   a word folded, a quoted name as the server names it, a string as written (quotes
     *               and all, line breaks as spaces), a symbol
     * @param quoted a quoted name
     * @param line   its line, counting from the line the text was said to start on
     * @param start  where it starts in the text read, or -1 when it has no place there
     * @param end    where it ends (exclusive), or -1
     * @param value  a string's value (unescaped, without quotes), null for anything else
     * @param body   read from a function's or DO block's body
     */
    public record Token(String text, boolean quoted, int line, int start, int end, String value, boolean body) {

        /** Whether it is the unquoted word or symbol {@code word} (words are folded: give them in lower case). */
        public boolean is(String word) {
            return !quoted && text.equals(word);
        }

        /** A string literal. */
        public boolean isString() {
            return value != null;
        }

        /** A name, quoted or not: what may name a role, a table, a setting. */
        public boolean isName() {
            return value == null && (quoted || !text.isEmpty() && isIdentStart(text.charAt(0)));
        }

        /** Whether it has a place in the text it was read from. */
        public boolean placed() {
            return start >= 0;
        }

        private Token inBody(int shift) {
            return new Token(text, quoted, line, start < 0 || shift < 0 ? -1 : start + shift,
                    end < 0 || shift < 0 ? -1 : end + shift, value, true);
        }
    }

    private SqlLexer() {
    }

    /** The tokens of {@code sql}, its first line counted as {@code startLine}. */
    public static List<Token> lex(String sql, int startLine) {
        List<Token> out = new ArrayList<>();
        lex(sql, startLine, out);
        return out;
    }

    /**
     * The statements of {@code sql}, each as its tokens (a body's statements after the statement
     * that holds it); empty statements are left out.
     */
    public static List<List<Token>> statements(String sql, int startLine) {
        List<List<Token>> statements = new ArrayList<>();
        List<Token> current = new ArrayList<>();
        for (Token t : lex(sql, startLine)) {
            if (t.is(";")) {
                if (!current.isEmpty()) {
                    statements.add(current);
                }
                current = new ArrayList<>();
            } else {
                current.add(t);
            }
        }
        if (!current.isEmpty()) {
            statements.add(current);
        }
        return statements;
    }

    /**
     * A statement as the server reads it at the top level: its tokens, a body's among them, and
     * where its terminating {@code ;} ends (or the text's end).
     */
    public record TopLevel(List<Token> tokens, int end) {

        /** Its own words: the tokens not read from a body. */
        public List<Token> words() {
            return tokens.stream().filter(t -> !t.body()).toList();
        }

        /** Whether a body (dollar-quoted text, or a string after AS or DO) stands in it. */
        public boolean holdsBody() {
            return tokens.stream().anyMatch(Token::body);
        }
    }

    /**
     * The statements of {@code sql} as the server splits them: at each {@code ;} outside quotes
     * and bodies. (Unlike {@link #statements}, a body's statements stay inside the one that holds
     * it.) Empty statements are left out.
     */
    public static List<TopLevel> topLevel(String sql) {
        List<TopLevel> statements = new ArrayList<>();
        List<Token> current = new ArrayList<>();
        for (Token t : lex(sql, 1)) {
            if (t.is(";") && !t.body()) {
                if (!current.isEmpty()) {
                    statements.add(new TopLevel(List.copyOf(current), t.end()));
                }
                current = new ArrayList<>();
            } else {
                current.add(t);
            }
        }
        if (!current.isEmpty()) {
            statements.add(new TopLevel(List.copyOf(current), sql.length()));
        }
        return statements;
    }

    private static void lex(String sql, int startLine, List<Token> out) {
        int line = startLine;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int depth = 0;
                do {
                    if (sql.startsWith("/*", i)) {
                        depth++;
                        i += 2;
                    } else if (sql.startsWith("*/", i)) {
                        depth--;
                        i += 2;
                    } else {
                        if (sql.charAt(i) == '\n') {
                            line++;
                        }
                        i++;
                    }
                } while (i < n && depth > 0);
            } else if ((c == 'u' || c == 'U') && i + 2 < n && sql.charAt(i + 1) == '&'
                    && (sql.charAt(i + 2) == '"' || sql.charAt(i + 2) == '\'')) {
                out.add(new Token(UNICODE_ESCAPE, false, line, i, i + 2, null, false));
                i += 2;
            } else if (c == '\'' || ((c == 'e' || c == 'E') && i + 1 < n && sql.charAt(i + 1) == '\'')) {
                boolean escapes = c != '\'';
                int start = i;
                int at = line;
                i += escapes ? 2 : 1;
                StringBuilder value = new StringBuilder();
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == '\n') {
                        line++;
                    }
                    if (escapes && d == '\\') {
                        i = unescape(sql, i, value);
                    } else if (d == '\'' && i + 1 < n && sql.charAt(i + 1) == '\'') {
                        value.append('\'');
                        i += 2;
                    } else if (d == '\'') {
                        i++;
                        break;
                    } else {
                        value.append(d);
                        i++;
                    }
                }
                if (isBodyString(out)) {
                    // A function's or DO block's body written as a string is SQL as much as a dollar-quoted one.
                    lexBody(value.toString(), at, -1, out);
                } else {
                    int end = Math.min(i, n);
                    out.add(new Token(sql.substring(start, end).replace("\n", " "), false, at, start, end,
                            value.toString(), false));
                }
            } else if (c == '"') {
                StringBuilder name = new StringBuilder();
                int at = line;
                int start = i;
                i++;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == '"' && i + 1 < n && sql.charAt(i + 1) == '"') {
                        name.append('"');
                        i += 2;
                    } else if (d == '"') {
                        i++;
                        break;
                    } else {
                        if (d == '\n') {
                            line++;
                        }
                        name.append(d);
                        i++;
                    }
                }
                out.add(new Token(truncate(name.toString()), true, at, start, Math.min(i, n), null, false));
            } else if (c == '$' && dollarTag(sql, i) != null) {
                String tag = dollarTag(sql, i);
                int bodyStart = i + tag.length();
                int end = sql.indexOf(tag, bodyStart);
                String body = sql.substring(bodyStart, end < 0 ? n : end);
                lexBody(body, line, bodyStart, out);
                line += (int) body.chars().filter(ch -> ch == '\n').count();
                i = end < 0 ? n : end + tag.length();
            } else if (isIdentStart(c)) {
                int start = i;
                while (i < n && (isIdentStart(sql.charAt(i)) || Character.isDigit(sql.charAt(i))
                        || sql.charAt(i) == '$')) {
                    i++;
                }
                out.add(new Token(truncate(fold(sql.substring(start, i))), false, line, start, i, null, false));
            } else {
                out.add(new Token(String.valueOf(c), false, line, i, i + 1, null, false));
                i++;
            }
        }
    }

    /**
     * A body's statements, on their own: a statement ends before it and after it, so neither the
     * outer statement's words nor the ones after the body are read as part of the body's.
     *
     * @param shift where the body starts in the text read, or -1 when it has no place there
     */
    private static void lexBody(String body, int line, int shift, List<Token> out) {
        out.add(separator(line));
        List<Token> inner = new ArrayList<>();
        lex(body, line, inner);
        for (Token t : inner) {
            out.add(t.inBody(shift));
            // PL/pgSQL: a statement starts after these too (BEGIN CREATE ROLE …; IF … THEN DROP …).
            if (t.is("begin") || t.is("then") || t.is("else") || t.is("loop") || t.is("declare")) {
                out.add(separator(t.line()));
            }
        }
        int last = inner.isEmpty() ? line : inner.get(inner.size() - 1).line();
        out.add(separator(last));
    }

    private static Token separator(int line) {
        return new Token(";", false, line, -1, -1, null, true);
    }

    /**
     * Whether a string lexed now is a body: after AS in CREATE [OR REPLACE] FUNCTION or PROCEDURE,
     * right after DO, or after DO LANGUAGE x.
     */
    private static boolean isBodyString(List<Token> out) {
        int start = out.size();
        while (start > 0 && !out.get(start - 1).is(";")) {
            start--;
        }
        List<Token> s = out.subList(start, out.size());
        if (s.isEmpty()) {
            return false;
        }
        if (s.get(0).is("do")) {
            return s.size() == 1 || s.size() == 3 && s.get(1).is("language");
        }
        int kind = s.size() > 3 && s.get(1).is("or") && s.get(2).is("replace") ? 3 : 1;
        return s.get(0).is("create") && kind < s.size()
                && (s.get(kind).is("function") || s.get(kind).is("procedure"))
                && (s.get(s.size() - 1).is("as") || s.size() >= 2 && s.get(s.size() - 1).is(",")
                && indexOf(s, "as") > 0);
    }

    /** Where the unquoted word {@code word} first stands in {@code t}, or -1. */
    public static int indexOf(List<Token> t, String word) {
        for (int i = 0; i < t.size(); i++) {
            if (t.get(i).is(word)) {
                return i;
            }
        }
        return -1;
    }

    /** Reads the escape at {@code i} (a backslash) of an E'…' string into {@code value}; returns where it ends. */
    private static int unescape(String sql, int i, StringBuilder value) {
        int n = sql.length();
        if (i + 1 >= n) {
            return n;
        }
        char e = sql.charAt(i + 1);
        int j = i + 2;
        switch (e) {
            case 'b' -> value.append('\b');
            case 'f' -> value.append('\f');
            case 'n' -> value.append('\n');
            case 'r' -> value.append('\r');
            case 't' -> value.append('\t');
            case 'x', 'u', 'U' -> {
                int max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                int k = j;
                while (k < n && k - j < max && Character.digit(sql.charAt(k), 16) >= 0) {
                    k++;
                }
                if (k == j) {
                    value.append(e);
                } else {
                    value.appendCodePoint(Integer.parseInt(sql.substring(j, k), 16));
                }
                j = k;
            }
            default -> {
                if (e >= '0' && e <= '7') {
                    int k = i + 1;
                    while (k < n && k - (i + 1) < 3 && sql.charAt(k) >= '0' && sql.charAt(k) <= '7') {
                        k++;
                    }
                    value.append((char) Integer.parseInt(sql.substring(i + 1, k), 8));
                    j = k;
                } else {
                    value.append(e);
                }
            }
        }
        return j;
    }

    /** PostgreSQL reads letters, '_' and every byte with the high bit set (any non-ASCII character) as a name's. */
    private static boolean isIdentStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80;
    }

    /** {@code $tag$} starting at {@code i}, or null when the dollar starts no quote ($1, a name's $). */
    private static String dollarTag(String sql, int i) {
        int j = i + 1;
        while (j < sql.length() && (isIdentStart(sql.charAt(j)) || Character.isDigit(sql.charAt(j)))) {
            j++;
        }
        if (j < sql.length() && sql.charAt(j) == '$' && (j == i + 1 || !Character.isDigit(sql.charAt(i + 1)))) {
            return sql.substring(i, j + 1);
        }
        return null;
    }

    /** PostgreSQL folds unquoted names' ASCII letters to lower case (in UTF-8, only those). */
    static String fold(String word) {
        StringBuilder folded = new StringBuilder(word.length());
        for (int k = 0; k < word.length(); k++) {
            char ch = word.charAt(k);
            folded.append(ch >= 'A' && ch <= 'Z' ? (char) (ch + 32) : ch);
        }
        return folded.toString();
    }

    /** Names longer than NAMEDATALEN - 1 bytes are cut, on a character's boundary. */
    public static String truncate(String name) {
        if (name.getBytes(StandardCharsets.UTF_8).length <= NAME_BYTES) {
            return name;
        }
        StringBuilder cut = new StringBuilder();
        int bytes = 0;
        for (int k = 0; k < name.length(); ) {
            int cp = name.codePointAt(k);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + size > NAME_BYTES) {
                break;
            }
            cut.appendCodePoint(cp);
            bytes += size;
            k += Character.charCount(cp);
        }
        return cut.toString();
    }
}
