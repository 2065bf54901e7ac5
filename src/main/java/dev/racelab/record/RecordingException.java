package dev.racelab.record;

/**
 * A recording cannot be read or written: the message says which file and what is wrong with it in
 * one line, for a dialog or the command line.
 */
public final class RecordingException extends Exception {

    public RecordingException(String message) {
        super(message);
    }

    public RecordingException(String message, Throwable cause) {
        super(message, cause);
    }
}
