package dev.racelab.engine;

/**
 * A named point in a worker's script where the user may inject a delay or halt the worker.
 *
 * @param id          what the command line and the gates table call it, e.g. {@code after-read}
 * @param description one line saying what has and has not happened yet when a worker stands here
 * @param kind        what a rule set here does to the worker
 */
public record Gate(String id, String description, Kind kind) {

    /** What a rule at a gate does. */
    public enum Kind {
        /** A delay interrupts the worker: it shows as delayed until the delay is over. */
        PAUSE,
        /**
         * The gate sits inside an activity (thinking, eating): a delay makes the activity last
         * longer; the worker keeps its state and the delay is recorded as a note.
         */
        STRETCH,
        /**
         * A fault the user can inflict: any rule here (a delay or a breakpoint) arms the fault for
         * the workers it is set for, who suffer it here, after sitting out the delay. Without a
         * rule the gate does nothing, and step mode alone does not halt at it.
         */
        FAULT
    }

    public Gate {
        if (!id.matches("[a-z][a-z0-9_-]*")) {
            throw new IllegalArgumentException("gate ids are lower-case words joined by '-' (or '_', as a lab file writes them): " + id);
        }
    }

    /** A gate where a delay interrupts the worker. */
    public Gate(String id, String description) {
        this(id, description, Kind.PAUSE);
    }

    /** A gate inside an activity (thinking, eating), where a delay makes the activity last longer. */
    public static Gate stretching(String id, String description) {
        return new Gate(id, description, Kind.STRETCH);
    }

    /** A fault gate: a rule set here makes the worker suffer the fault. See {@link WorkerContext#fault}. */
    public static Gate fault(String id, String description) {
        return new Gate(id, description, Kind.FAULT);
    }

    public boolean stretches() {
        return kind == Kind.STRETCH;
    }

    public boolean isFault() {
        return kind == Kind.FAULT;
    }
}
