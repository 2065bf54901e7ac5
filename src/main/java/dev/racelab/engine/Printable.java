package dev.racelab.engine;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;

/**
 * Text from a file, made safe to show: what a recording (or any file) says goes to terminals,
 * refusal lines, CSV, SVG and JSON, and a crafted one must not set a terminal's title, clear its
 * screen, move its cursor or turn the text after it around.
 *
 * <p>Shown as visible escapes: the C0 controls (ESC as {@code \x1b}, line feed and carriage
 * return as {@code \n} and {@code \r}), DEL and the C1 controls (CSI as {@code \x9b}), the
 * bidirectional controls (U+202E as backslash, "u202e"), the line and paragraph separators, the
 * noncharacters U+FFFE and U+FFFF, and a surrogate without its pair (none of which XML may hold).
 * Tab is kept: it moves nothing but the cursor's column. A backslash is kept as it is, so escaped
 * text stays readable: it is for showing, not for reading back.
 */
public final class Printable {

    private Printable() {
    }

    /** {@code text} for one line of a terminal, a refusal or a picture's label: every control escaped. */
    public static String line(String text) {
        return escaped(text, false);
    }

    /** {@code text} for a field that may hold line breaks (a CSV field, quoted): as {@link #line}, but {@code \n} kept. */
    public static String field(String text) {
        return escaped(text, true);
    }

    /**
     * At most {@code max} characters of {@code text}, escaped as {@link #line}, with "…" where it
     * was cut: for quoting a file's text in a one-line message.
     */
    public static String excerpt(CharSequence text, int max) {
        boolean cut = text.length() > max;
        return line(text.subSequence(0, cut ? max : text.length()).toString()) + (cut ? "…" : "");
    }

    /**
     * A JSON document with the characters {@link #line} escapes and a JSON writer leaves raw (DEL,
     * C1, bidirectional controls, …) written as JSON's own escapes (backslash, "u202e"): the same
     * JSON to a parser, nothing for a terminal or a viewer to act on. Those characters can only
     * stand inside strings, where the escape means the character itself.
     */
    public static String json(String json) {
        StringWriter out = new StringWriter(json.length() + 16);
        try (Writer filter = json(out)) {
            filter.write(json);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return out.toString();
    }

    /**
     * What is written to the result goes to {@code out} as {@link #json(String)} would make it,
     * gathered in a buffer of its own and passed on in large pieces (a JSON writer writes a few
     * characters at a time, and each write to a {@link java.io.BufferedWriter} takes its lock).
     * Flushing or closing the result passes on what it holds. Used by one thread.
     */
    public static Writer json(Writer out) {
        return new Writer() {
            private final char[] buffer = new char[1 << 13];
            private int held;

            @Override
            public void write(int c) throws IOException {
                if (c >= 0x20 && unsafe((char) c)) {
                    String escape = String.format("\\u%04x", c);
                    write(escape, 0, escape.length());
                } else {
                    if (held == buffer.length) {
                        pass();
                    }
                    buffer[held++] = (char) c;
                }
            }

            @Override
            public void write(char[] text, int offset, int length) throws IOException {
                write(new String(text, offset, length), 0, length);
            }

            @Override
            public void write(String text, int offset, int length) throws IOException {
                for (int i = offset; i < offset + length; i++) {
                    char c = text.charAt(i);
                    if (c >= 0x20 && unsafe(c)) {
                        write(c);
                    } else {
                        if (held == buffer.length) {
                            pass();
                        }
                        buffer[held++] = c;
                    }
                }
            }

            private void pass() throws IOException {
                out.write(buffer, 0, held);
                held = 0;
            }

            @Override
            public void flush() throws IOException {
                pass();
                out.flush();
            }

            @Override
            public void close() throws IOException {
                pass();
                out.close();
            }
        };
    }

    private static String escaped(String text, boolean keepNewlines) {
        if (text == null) {
            return null;
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean escape = c != '\t' && !(keepNewlines && c == '\n') && unsafe(text, i);
            if (escape && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (escape) {
                out.append(switch (c) {
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    default -> c < 0x100 ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c);
                });
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    /**
     * Whether the character at {@code i} is shown escaped: a control (see {@link #line}), or a
     * surrogate without its pair. A JSON writer writes these as its own escapes (backslash, "u",
     * four hex digits).
     */
    public static boolean unsafe(String text, int i) {
        char c = text.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(text.charAt(i - 1));
        }
        return unsafe(c);
    }

    /** C0, DEL, C1, the bidirectional controls, the line and paragraph separators, U+FFFE and U+FFFF. */
    private static boolean unsafe(char c) {
        return c < 0x20 || c >= 0x7f && c < 0xa0 || c == 0x061c || c == 0x200e || c == 0x200f
                || c >= 0x2028 && c <= 0x202e || c >= 0x2066 && c <= 0x2069 || c == 0xfffe || c == 0xffff;
    }
}
