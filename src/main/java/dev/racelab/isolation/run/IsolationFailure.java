package dev.racelab.isolation.run;

/**
 * A spec could not run to its end: a setup failed, a session could not connect, a step outlived
 * every bound, steps blocked each other for good. isolationtester stops there too (exit 1); the
 * transcript up to this point stands, and the message says what happened in one line.
 */
public final class IsolationFailure extends Exception {

    public IsolationFailure(String message) {
        super(message);
    }

    public IsolationFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
