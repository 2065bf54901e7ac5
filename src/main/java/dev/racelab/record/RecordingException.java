package dev.racelab.record;

import dev.racelab.engine.Printable;

/**
 * A recording cannot be read or written: the message says which file and what is wrong with it in
 * one line, for a dialog or the command line. What it quotes of a file, or a file's name, is shown
 * with its control characters escaped ({@link Printable#line}), so a crafted file cannot act on
 * the terminal that prints the refusal.
 */
public final class RecordingException extends Exception {

    public RecordingException(String message) {
        super(Printable.line(message));
    }

    public RecordingException(String message, Throwable cause) {
        super(Printable.line(message), cause);
    }
}
