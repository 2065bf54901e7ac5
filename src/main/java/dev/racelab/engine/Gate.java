package dev.racelab.engine;

/**
 * A named point in a worker's script where the user may inject a delay or halt the worker.
 *
 * @param id          what the command line and the gates table call it, e.g. {@code after-read}
 * @param description one line saying what has and has not happened yet when a worker stands here
 */
public record Gate(String id, String description) {

    public Gate {
        if (!id.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("gate ids are lower-case words joined by '-': " + id);
        }
    }
}
