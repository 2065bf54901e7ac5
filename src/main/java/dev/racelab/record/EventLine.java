package dev.racelab.record;

/**
 * An event line's six fields, {@code [seq, t, actor, "KIND", value, subject]}, read straight from
 * its characters, without a JSON tree: the line as RaceLab writes it (no spaces, whole numbers, a
 * state's or lane kind's name for a value, a subject that is {@code null} or a string without
 * escapes). Any other line, well-formed JSON or not, is not read here ({@link #read} says false)
 * and goes to the JSON parser, which reads it or says what is wrong: a line is accepted, or
 * refused, exactly as before, only sooner. Reused line after line by one thread.
 */
final class EventLine {

    /** Longest number read here: 18 digits never overflow a {@code long}. */
    private static final int MAX_DIGITS = 18;

    long seq;
    long nanos;
    long actor;
    String kind;
    /** The value's name (a state, a lane's kind), or null when the value is a number ({@link #value}). */
    String valueName;
    long value;
    /** Null for JSON's {@code null}. */
    String subject;

    private String line;
    private int at;

    /** Reads {@code line}'s fields; false when it is not in the plain shape. */
    boolean read(String text) {
        line = text;
        at = 0;
        if (!take('[')) {
            return false;
        }
        try {
            seq = number();
            comma();
            nanos = number();
            comma();
            actor = number();
            comma();
            kind = string();
            comma();
            if (peek() == '"') {
                valueName = string();
            } else {
                valueName = null;
                value = number();
            }
            comma();
            if (line.startsWith("null", at)) {
                at += 4;
                subject = null;
            } else {
                subject = string();
            }
            return take(']') && at == line.length();
        } catch (NotPlain e) {
            return false;
        }
    }

    private char peek() {
        return at < line.length() ? line.charAt(at) : 0;
    }

    private boolean take(char c) {
        if (peek() != c) {
            return false;
        }
        at++;
        return true;
    }

    private void comma() throws NotPlain {
        if (!take(',')) {
            throw NotPlain.INSTANCE;
        }
    }

    /** A whole number as JSON writes it: an optional minus, then 0 or digits not starting with 0. */
    private long number() throws NotPlain {
        boolean negative = take('-');
        int start = at;
        long n = 0;
        while (at < line.length()) {
            char c = line.charAt(at);
            if (c < '0' || c > '9') {
                break;
            }
            n = n * 10 + (c - '0');
            at++;
        }
        int digits = at - start;
        if (digits == 0 || digits > MAX_DIGITS || digits > 1 && line.charAt(start) == '0') {
            throw NotPlain.INSTANCE;
        }
        char next = peek();
        if (next == '.' || next == 'e' || next == 'E') {
            throw NotPlain.INSTANCE;
        }
        return negative ? -n : n;
    }

    /** A string without escapes or control characters. */
    private String string() throws NotPlain {
        if (!take('"')) {
            throw NotPlain.INSTANCE;
        }
        int start = at;
        while (at < line.length()) {
            char c = line.charAt(at);
            if (c == '"') {
                return line.substring(start, at++);
            }
            if (c == '\\' || c < 0x20) {
                throw NotPlain.INSTANCE;
            }
            at++;
        }
        throw NotPlain.INSTANCE;
    }

    /** Not the plain shape: the line goes to the JSON parser. */
    private static final class NotPlain extends Exception {
        static final NotPlain INSTANCE = new NotPlain();

        private NotPlain() {
            super(null, null, false, false);
        }
    }
}
