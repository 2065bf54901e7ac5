package dev.racelab.export;

import dev.racelab.engine.Printable;

import java.io.IOException;
import java.io.OutputStream;

/**
 * JSON written as UTF-8 fragments into a buffer of its own, for an export of millions of small objects
 * (the trace): the structure is RaceLab's own text ({@link #raw}), only strings ({@link #string})
 * are escaped, and numbers are written as digits with no detour through {@code double}. A general
 * JSON writer checks its state and escapes every character it is given, a text filter after it
 * looks at every character again, and a charset encoder once more; here the fixed text is copied
 * as it is and the rest encoded as it is escaped.
 *
 * <p>Strings are escaped as JSON requires ({@code "}, {@code \}, the C0 controls) and, as {@link
 * Printable#json(java.io.Writer)} does for the other exports, every character a terminal or a viewer could
 * act on (DEL, C1, the bidirectional controls, the line and paragraph separators, a lone
 * surrogate) as a JSON escape (backslash, "u", four hex digits): the same string to a parser. Used by one thread.
 */
final class JsonOut {

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final OutputStream out;
    private final byte[] buffer = new byte[1 << 16];
    private int held;
    private boolean inArray;

    JsonOut(OutputStream out) {
        this.out = out;
    }

    /** Opens the next object of the one array written: a comma before every one but the first. */
    JsonOut object() throws IOException {
        raw(inArray ? ",{" : "{");
        inArray = true;
        return this;
    }

    /** {@code text} as it is: RaceLab's own JSON punctuation and names (ASCII), never text from a file. */
    JsonOut raw(String text) throws IOException {
        for (int i = 0; i < text.length(); i++) {
            room(1);
            buffer[held++] = (byte) text.charAt(i);
        }
        return this;
    }

    /** {@code text} as a JSON string, quoted and escaped (see the class comment). */
    JsonOut string(String text) throws IOException {
        room(2);
        buffer[held++] = '"';
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            room(6);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                buffer[held++] = (byte) c;
            } else if (c == '"' || c == '\\') {
                buffer[held++] = '\\';
                buffer[held++] = (byte) c;
            } else if (c == '\n') {
                buffer[held++] = '\\';
                buffer[held++] = 'n';
            } else if (Printable.unsafe(text, i)) {
                buffer[held++] = '\\';
                buffer[held++] = 'u';
                buffer[held++] = HEX[c >> 12 & 0xf];
                buffer[held++] = HEX[c >> 8 & 0xf];
                buffer[held++] = HEX[c >> 4 & 0xf];
                buffer[held++] = HEX[c & 0xf];
            } else if (c < 0x800) {
                buffer[held++] = (byte) (0xc0 | c >> 6);
                buffer[held++] = (byte) (0x80 | c & 0x3f);
            } else if (Character.isHighSurrogate(c)) {
                // With its pair (a lone one was escaped above): one code point, four bytes.
                int point = Character.toCodePoint(c, text.charAt(++i));
                buffer[held++] = (byte) (0xf0 | point >> 18);
                buffer[held++] = (byte) (0x80 | point >> 12 & 0x3f);
                buffer[held++] = (byte) (0x80 | point >> 6 & 0x3f);
                buffer[held++] = (byte) (0x80 | point & 0x3f);
            } else {
                buffer[held++] = (byte) (0xe0 | c >> 12);
                buffer[held++] = (byte) (0x80 | c >> 6 & 0x3f);
                buffer[held++] = (byte) (0x80 | c & 0x3f);
            }
        }
        room(1);
        buffer[held++] = '"';
        return this;
    }

    /** A whole number. */
    JsonOut number(long value) throws IOException {
        room(20);
        if (value < 0) {
            if (value == Long.MIN_VALUE) {
                return raw(Long.toString(value));
            }
            buffer[held++] = '-';
            value = -value;
        }
        int start = held;
        do {
            buffer[held++] = (byte) ('0' + value % 10);
            value /= 10;
        } while (value > 0);
        for (int i = start, j = held - 1; i < j; i++, j--) {
            byte swap = buffer[i];
            buffer[i] = buffer[j];
            buffer[j] = swap;
        }
        return this;
    }

    /** {@code nanos} as microseconds, exactly: {@code 1234567} as {@code 1234.567}, {@code -5000} as {@code -5}. */
    JsonOut micros(long nanos) throws IOException {
        if (nanos == Long.MIN_VALUE) {
            return raw("-9223372036854775.808");
        }
        if (nanos < 0) {
            raw("-");
            return micros(-nanos);
        }
        number(nanos / 1000);
        int fraction = (int) (nanos % 1000);
        if (fraction != 0) {
            room(4);
            buffer[held++] = '.';
            buffer[held++] = (byte) ('0' + fraction / 100);
            if (fraction % 100 != 0) {
                buffer[held++] = (byte) ('0' + fraction / 10 % 10);
                if (fraction % 10 != 0) {
                    buffer[held++] = (byte) ('0' + fraction % 10);
                }
            }
        }
        return this;
    }

    /** Passes on what is held and flushes the writer. */
    void flush() throws IOException {
        pass();
        out.flush();
    }

    private void room(int chars) throws IOException {
        if (held + chars > buffer.length) {
            pass();
        }
    }

    private void pass() throws IOException {
        out.write(buffer, 0, held);
        held = 0;
    }
}
