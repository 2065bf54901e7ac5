package dev.racelab.record;

import java.io.IOException;
import java.io.Reader;

/**
 * A recording's lines, one at a time, none longer than {@link #MAX_LINE} characters: a longer line
 * is never held whole, only its beginning, so a file of one endless line costs what a line does.
 * A line ends at {@code \n}, {@code \r\n} or {@code \r}, as {@link java.io.BufferedReader#readLine}
 * takes them. Used by one thread.
 */
final class LineReader {

    /**
     * The longest line a recording may hold, in characters: 8 MiB. RaceLab's longest are an
     * outcome's (10,000 places of violations are about 110 kB; a lab that names its own places
     * could name 800,000 in this) and an isolation step's SQL and results, far shorter.
     */
    static final int MAX_LINE = 8 << 20;
    /** How much of a line too long to keep, to quote it. */
    static final int KEPT = 60;

    /** A line longer than {@link #MAX_LINE}. */
    static final class TooLong extends IOException {
        private final String start;

        TooLong(String start) {
            super("a line longer than " + (MAX_LINE >> 20) + " MiB");
            this.start = start;
        }

        /** Its first {@link #KEPT} characters. */
        String start() {
            return start;
        }
    }

    private final Reader in;
    private final int maxLine;
    private final char[] buffer = new char[1 << 16];
    private final StringBuilder line = new StringBuilder(256);
    private int position;
    private int limit;
    private boolean afterCarriageReturn;

    LineReader(Reader in) {
        this(in, MAX_LINE);
    }

    LineReader(Reader in, int maxLine) {
        this.in = in;
        this.maxLine = maxLine;
    }

    /** The next line without its ending, or null at the end of the file. */
    String next() throws IOException {
        line.setLength(0);
        boolean any = false;
        while (true) {
            if (position == limit) {
                limit = in.read(buffer, 0, buffer.length);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    return any ? line.toString() : null;
                }
            }
            if (afterCarriageReturn) {
                afterCarriageReturn = false;
                if (buffer[position] == '\n') {
                    position++;
                    continue;
                }
            }
            any = true;
            int start = position;
            while (position < limit && buffer[position] != '\n' && buffer[position] != '\r') {
                position++;
            }
            if (line.length() + position - start > maxLine) {
                line.append(buffer, start, Math.min(position - start, KEPT));
                throw new TooLong(line.substring(0, Math.min(line.length(), KEPT)));
            }
            line.append(buffer, start, position - start);
            if (position < limit) {
                afterCarriageReturn = buffer[position] == '\r';
                position++;
                return line.toString();
            }
        }
    }
}
