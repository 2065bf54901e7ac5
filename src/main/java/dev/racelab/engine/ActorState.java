package dev.racelab.engine;

/**
 * What an actor is doing, as the timeline colours it.
 *
 * <p>Workers move between these as their script runs; each move is a {@link EventKind#STATE}
 * event. {@link #DELAYED} and {@link #AT_GATE} are set by the engine's gates, everything else by
 * the lab.
 */
public enum ActorState {
    /** Not started yet. */
    IDLE("idle"),
    /** Executing its script: talking to a server or computing. */
    RUNNING("running"),
    /** Blocked, waiting for a lock, a row or a wake-up. */
    WAITING("waiting"),
    /** Holding a lock outside its critical section. */
    HOLDING("holding"),
    /** Inside the section the lock protects. */
    CRITICAL("critical section"),
    /** Held back by a delay the user set at a gate. */
    DELAYED("delayed at gate"),
    /** Halted at a gate (breakpoint, step mode or pause) until released. */
    AT_GATE("paused at gate"),
    /** A dining philosopher thinking. */
    THINKING("thinking"),
    /** A dining philosopher wanting to eat. */
    HUNGRY("hungry"),
    /** A dining philosopher eating. */
    EATING("eating"),
    /** Finished every operation. */
    DONE("done"),
    /** Stopped by an error. */
    FAILED("failed");

    private static final ActorState[] VALUES = values();

    private final String label;

    ActorState(String label) {
        this.label = label;
    }

    /** How the state reads in a legend or hover text. */
    public String label() {
        return label;
    }

    static ActorState ofOrdinal(long ordinal) {
        return VALUES[(int) ordinal];
    }
}
