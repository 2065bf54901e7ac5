package dev.racelab.engine;

/**
 * A named point in a worker's script where the user may inject a delay or halt the worker.
 *
 * @param id          what the command line and the gates table call it, e.g. {@code after-read}
 * @param description one line saying what has and has not happened yet when a worker stands here
 * @param stretches   whether a delay here makes the worker's current activity last longer (a
 *                    philosopher eats longer) rather than interrupting it; the worker keeps its
 *                    state through the delay and the delay is recorded as a note
 */
public record Gate(String id, String description, boolean stretches) {

    public Gate {
        if (!id.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("gate ids are lower-case words joined by '-': " + id);
        }
    }

    /** A gate where a delay interrupts the worker: it shows as delayed until the delay is over. */
    public Gate(String id, String description) {
        this(id, description, false);
    }

    /** A gate inside an activity (thinking, eating), where a delay makes the activity last longer. */
    public static Gate stretching(String id, String description) {
        return new Gate(id, description, true);
    }
}
