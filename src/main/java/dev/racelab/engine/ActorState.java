package dev.racelab.engine;

/**
 * What an actor is doing: the vocabulary of the timeline's coloured segments.
 *
 * <p>Each state is one row of the table the timeline, its legend, its hover text and the lab
 * pictures read: a label, an ink, a drawing priority and a pattern. A lab that needs a new state
 * adds one row here and touches nothing in the window. Recordings store states by name, so a row
 * added anywhere leaves older files meaning what they meant.
 *
 * <p>Workers move between these as their script runs; each move is a {@link EventKind#STATE}
 * event. {@link #DELAYED} and {@link #AT_GATE} are set by the engine's gates, everything else by
 * the lab.
 */
public enum ActorState {
    /** Not started yet. */
    IDLE("idle", Ink.MUTED, 0, Pattern.NONE, null),
    /** Executing its script: talking to a server or computing. */
    RUNNING("running", Ink.RUNNING, 3, Pattern.SOLID, "running"),
    /** Blocked, waiting for a lock, a row or a wake-up. */
    WAITING("waiting", Ink.WAITING, 9, Pattern.SOLID, "waiting"),
    /** Holding a lock outside its critical section. */
    HOLDING("holding", Ink.HOLDING, 6, Pattern.SOLID, "holding"),
    /** Inside the section the lock protects. */
    CRITICAL("critical section", Ink.CRITICAL, 7, Pattern.SOLID, "critical section"),
    /** Held back by a delay the user set at a gate. */
    DELAYED("delayed at gate", Ink.DELAYED, 8, Pattern.HATCHED, "delay"),
    /** Halted at a gate (breakpoint, step mode or pause) until released. */
    AT_GATE("paused at gate", Ink.AT_GATE, 10, Pattern.BARRED, "paused at gate"),
    /** A dining philosopher thinking. */
    THINKING("thinking", Ink.THINKING, 2, Pattern.SOLID, "thinking"),
    /** A dining philosopher wanting to eat. */
    HUNGRY("hungry", Ink.HUNGRY, 4, Pattern.SOLID, "hungry"),
    /** A dining philosopher eating. */
    EATING("eating", Ink.EATING, 5, Pattern.SOLID, "eating"),
    /** A consumer sending the jobs it took: the work each job needs done exactly once. */
    SENDING("sending", Ink.CRITICAL, 7, Pattern.SOLID, "sending"),
    /** Finished every operation. */
    DONE("done", Ink.DONE, 1, Pattern.NONE, null),
    /** Stopped by an error. */
    FAILED("failed", Ink.FAILED, 11, Pattern.SOLID, "failed");

    /** How a state's segment is filled, so the states that matter most read without colour too. */
    public enum Pattern {
        /** Not drawn: the lane is empty there. */
        NONE,
        SOLID,
        /** Diagonal hatching in a lighter shade: a delay someone set on purpose. */
        HATCHED,
        /** Vertical bars: halted until released. */
        BARRED
    }

    private static final ActorState[] VALUES = values();

    private final String label;
    private final Ink ink;
    private final int priority;
    private final Pattern pattern;
    private final String legend;

    ActorState(String label, Ink ink, int priority, Pattern pattern, String legend) {
        this.label = label;
        this.ink = ink;
        this.priority = priority;
        this.pattern = pattern;
        this.legend = legend;
    }

    /** How the state reads in hover text and panels. */
    public String label() {
        return label;
    }

    /** The colour role of its segments and chips. */
    public Ink ink() {
        return ink;
    }

    /**
     * Which state wins when several share one pixel column of a zoomed-out timeline: higher wins,
     * so a short wait or halt is never lost among long stretches of running.
     */
    public int priority() {
        return priority;
    }

    public Pattern pattern() {
        return pattern;
    }

    /** The legend's words for it, or null for states the legend leaves out (idle, done). */
    public String legend() {
        return legend;
    }

    /**
     * What a segment in this state says about {@code subject} (what the state concerns: a gate, a
     * lock), as the timeline writes it on the segment and in its hover text.
     */
    public String describe(String subject) {
        if (subject == null) {
            return label;
        }
        return switch (this) {
            case WAITING -> "waits: " + subject;
            case DELAYED -> "delay · " + subject;
            case AT_GATE -> "halted · " + subject;
            default -> label + " · " + subject;
        };
    }

    /** The state with this ordinal; events keep states as ordinals in memory. */
    public static ActorState byOrdinal(long ordinal) {
        return VALUES[(int) ordinal];
    }
}
