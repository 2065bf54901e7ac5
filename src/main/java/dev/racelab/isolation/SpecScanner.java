package dev.racelab.isolation;

import java.util.Map;

/**
 * Splits a spec into tokens, tracking lines and columns, by the rules of PostgreSQL's isolation
 * scanner ({@link SpecReader} has them). In <b>lab-file mode</b> it also knows what a lab file adds
 * ({@code docs/lab-format.md}): comparison and arithmetic signs, and {@code $name} for a value;
 * its own words ({@code gate}, {@code redis}, …) stay names, which the lab reader recognises where
 * it expects them, so every isolation spec reads the same as a lab file.
 */
public final class SpecScanner {

    /** What a token is. The first six are the spec's keywords. */
    public enum Kind {
        SETUP, TEARDOWN, SESSION, STEP, PERMUTATION, NOTICES, NAME, SQL, INTEGER, LEFT, RIGHT, COMMA, STAR, END,
        /** Lab files only: {@code = != < <= > >= + -}, the sign in {@code text}. */
        SIGN,
        /** Lab files only: {@code $name}, the name in {@code text}. */
        VALUE;

        /** Whether this kind is one of the spec's keywords (which a name must quote). */
        public boolean keyword() {
            return ordinal() <= NOTICES.ordinal();
        }
    }

    /** A token and where it starts. {@code text}: a name, SQL, digits, a sign; null for the others. */
    public record Token(Kind kind, String text, int line, int column) {

        /** The token as a message names it: {@code 'gate'}, {@code a { SQL } block}. */
        public String describe() {
            return switch (kind) {
                case NAME, SIGN -> "'" + text + "'";
                case VALUE -> "'$" + text + "'";
                case SQL -> "a { SQL } block";
                case INTEGER -> text;
                case LEFT -> "'('";
                case RIGHT -> "')'";
                case COMMA -> "','";
                case STAR -> "'*'";
                case END -> "the end of the file";
                default -> "'" + kind.name().toLowerCase() + "'";
            };
        }

        /** What a message says was found where a name was expected: a keyword with how to use it as one. */
        public String describeForName() {
            return kind.keyword() ? describe() + " (a keyword: quote it to use it as a name)" : describe();
        }

        /** Whether this is the name {@code word} (a lab file's words are names where a spec has none). */
        public boolean is(String word) {
            return kind == Kind.NAME && word.equals(text);
        }
    }

    private static final Map<String, Kind> KEYWORDS = Map.of(
            "setup", Kind.SETUP, "teardown", Kind.TEARDOWN, "session", Kind.SESSION, "step", Kind.STEP,
            "permutation", Kind.PERMUTATION, "notices", Kind.NOTICES);

    private final String file;
    private final String text;
    private final boolean lab;
    private int pos;
    private int line = 1;
    private int lineStart;

    /** A scanner of {@code text}, found in {@code file} (for messages); {@code lab}: in lab-file mode. */
    public SpecScanner(String file, String text, boolean lab) {
        this.file = file;
        this.text = text;
        this.lab = lab;
    }

    /** What a { … } block is called: in a spec always SQL; in a lab file SQL or Redis commands. */
    private String block() {
        return lab ? "block" : "SQL block";
    }

    private int column() {
        return pos - lineStart + 1;
    }

    private SpecException error(int atLine, int atColumn, String problem) {
        return new SpecException(file, atLine, atColumn, problem);
    }

    /** The next token; {@link Kind#END} at the end, again and again. */
    public Token next() throws SpecException {
        skipBlanksAndComments();
        int startLine = line;
        int startColumn = column();
        if (pos >= text.length()) {
            return new Token(Kind.END, null, startLine, startColumn);
        }
        char c = text.charAt(pos);
        if (identifierStart(c)) {
            String word = identifier();
            Kind keyword = KEYWORDS.get(word);
            return new Token(keyword == null ? Kind.NAME : keyword, keyword == null ? word : null, startLine,
                    startColumn);
        }
        if (c >= '0' && c <= '9') {
            int begin = pos;
            while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
                pos++;
            }
            return new Token(Kind.INTEGER, text.substring(begin, pos), startLine, startColumn);
        }
        pos++;
        if (lab) {
            Token labToken = labToken(c, startLine, startColumn);
            if (labToken != null) {
                return labToken;
            }
        }
        return switch (c) {
            case '"' -> quotedName(startLine, startColumn);
            case '{' -> sql(startLine, startColumn);
            case '(' -> new Token(Kind.LEFT, null, startLine, startColumn);
            case ')' -> new Token(Kind.RIGHT, null, startLine, startColumn);
            case ',' -> new Token(Kind.COMMA, null, startLine, startColumn);
            case '*' -> new Token(Kind.STAR, null, startLine, startColumn);
            case '}' -> throw error(startLine, startColumn, "'}' closes no " + block());
            default -> throw error(startLine, startColumn, "unexpected character '" + c + "'");
        };
    }

    /** After {@code c}: a sign or a {@code $name}, or null for what specs have too. */
    private Token labToken(char c, int startLine, int startColumn) throws SpecException {
        boolean equalsNext = pos < text.length() && text.charAt(pos) == '=';
        switch (c) {
            case '=', '+', '-' -> {
                return new Token(Kind.SIGN, String.valueOf(c), startLine, startColumn);
            }
            case '<', '>' -> {
                if (equalsNext) {
                    pos++;
                }
                return new Token(Kind.SIGN, c + (equalsNext ? "=" : ""), startLine, startColumn);
            }
            case '!' -> {
                if (!equalsNext) {
                    throw error(startLine, startColumn, "'!' is only part of '!='");
                }
                pos++;
                return new Token(Kind.SIGN, "!=", startLine, startColumn);
            }
            case '$' -> {
                if (pos >= text.length() || !identifierStart(text.charAt(pos))) {
                    throw error(startLine, startColumn, "'$' begins a value's name, as in $token");
                }
                return new Token(Kind.VALUE, identifier(), startLine, startColumn);
            }
            default -> {
                return null;
            }
        }
    }

    private String identifier() {
        int begin = pos;
        while (pos < text.length() && identifierPart(text.charAt(pos))) {
            pos++;
        }
        return text.substring(begin, pos);
    }

    private void skipBlanksAndComments() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '\n') {
                pos++;
                line++;
                lineStart = pos;
            } else if (blank(c)) {
                pos++;
            } else if (c == '#') {
                while (pos < text.length() && text.charAt(pos) != '\n' && text.charAt(pos) != '\r') {
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private Token quotedName(int startLine, int startColumn) throws SpecException {
        StringBuilder name = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error(startLine, startColumn, "the quoted name that starts here is never closed");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                if (pos < text.length() && text.charAt(pos) == '"') {
                    name.append('"');
                    pos++;
                    continue;
                }
                return new Token(Kind.NAME, name.toString(), startLine, startColumn);
            }
            if (c == '\n') {
                throw error(startLine, startColumn, "the quoted name that starts here runs into a new line");
            }
            name.append(c);
        }
    }

    /** After '{': the text up to the next '}', trimmed of blanks (not newlines) just inside. */
    private Token sql(int startLine, int startColumn) throws SpecException {
        while (pos < text.length() && blank(text.charAt(pos))) {
            pos++;
        }
        int begin = pos;
        int close = text.indexOf('}', pos);
        if (close < 0) {
            throw error(startLine, startColumn, "the " + block() + " opened here has no closing '}'");
        }
        int end = close;
        while (end > begin && blank(text.charAt(end - 1))) {
            end--;
        }
        for (int i = pos; i < close; i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        pos = close + 1;
        return new Token(Kind.SQL, text.substring(begin, end), startLine, startColumn);
    }

    /** The blanks isolationtester's scanner skips: space, tab, carriage return, form feed. */
    private static boolean blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\f';
    }

    private static boolean identifierStart(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
    }

    private static boolean identifierPart(char c) {
        return identifierStart(c) || (c >= '0' && c <= '9') || c == '$';
    }
}
